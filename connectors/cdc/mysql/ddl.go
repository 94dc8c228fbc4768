package mysql

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/connectors/jdbc"
	"github.com/stactor/stactor/row"
)

// The binlog's ALTER TABLE statements (QUERY events) are read by a small
// parser of MySQL's grammar, not by asking the catalog: the catalog holds
// the table as it is now, which is not what it was at an older point of
// the binlog (a restart, a second ALTER since). The parser reads the
// clauses that change columns —
//
//	ADD [COLUMN] c def [FIRST | AFTER p], ADD [COLUMN] (c def, …)
//	DROP [COLUMN] [IF EXISTS] c
//	CHANGE [COLUMN] [IF EXISTS] old c def [FIRST | AFTER p]
//	MODIFY [COLUMN] [IF EXISTS] c def [FIRST | AFTER p]
//	RENAME COLUMN old TO c
//
// (MariaDB's IF [NOT] EXISTS too: a clause that finds nothing to do is
// left out), with def a type, NULL / NOT NULL, DEFAULT, COMMENT, CHARACTER SET and
// the attributes that do not change rows (COLLATE, AUTO_INCREMENT, ON
// UPDATE, keys, VISIBLE, …) — and skips those that change no column
// (indexes, keys, constraints, table options, partitions). Several
// clauses in one statement apply in order. Anything else that touches
// columns — ALTER COLUMN … SET/DROP DEFAULT, generated columns, CONVERT
// TO CHARACTER SET, RENAME TO another table — is an error naming the
// table and the statement (cdc.ErrSchemaChanged), never guessed at.

// alterClause is one column clause of an ALTER TABLE: the row model's
// clause (its Field's type still to be mapped) and the column's MySQL
// definition and character set.
type alterClause struct {
	change  row.ColumnChange
	def     jdbc.MySQLColumn
	charset string // CHARACTER SET given, "" for the table's
	// maybe is MariaDB's IF [NOT] EXISTS: the clause does nothing when
	// the table lacks the column (DROP, CHANGE, MODIFY) or has it (ADD).
	maybe bool
}

// ddlToken is a token of a statement: a word (keyword or identifier, its
// backquotes removed: quoted), a string literal's value, a number, or one
// punctuation character.
type ddlToken struct {
	text   string
	kind   byte // 'w' word, 's' string, 'n' number, 'p' punctuation
	quoted bool // a `quoted` identifier
}

func tokenize(q string) ([]ddlToken, error) {
	var out []ddlToken
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || c == '-' && strings.HasPrefix(q[i:], "-- "):
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return out, nil
			}
			i += j + 1
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("an unterminated comment")
			}
			i += j + 4
		case c == '`' || c == '\'' || c == '"':
			var b strings.Builder
			j := i + 1
			for ; ; j++ {
				if j >= len(q) {
					return nil, fmt.Errorf("an unterminated %c", c)
				}
				if q[j] == '\\' && c != '`' && j+1 < len(q) {
					j++
					b.WriteByte(unescape(q[j]))
					continue
				}
				if q[j] == c {
					if j+1 < len(q) && q[j+1] == c {
						b.WriteByte(c)
						j++
						continue
					}
					break
				}
				b.WriteByte(q[j])
			}
			kind := byte('s')
			if c == '`' {
				kind = 'w'
			}
			out = append(out, ddlToken{text: b.String(), kind: kind, quoted: c == '`'})
			i = j + 1
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			j := i
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.' || q[j] == 'e' || q[j] == 'E') {
				j++
			}
			out = append(out, ddlToken{text: q[i:j], kind: 'n'})
			i = j
		case isWordByte(c):
			j := i
			for j < len(q) && isWordByte(q[j]) {
				j++
			}
			out = append(out, ddlToken{text: q[i:j], kind: 'w'})
			i = j
		default:
			out = append(out, ddlToken{text: q[i : i+1], kind: 'p'})
			i++
		}
	}
	return out, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	}
	return c
}

// ddlParser walks a statement's tokens.
type ddlParser struct {
	toks []ddlToken
	p    int
}

func (p *ddlParser) peek(k int) ddlToken {
	if p.p+k < len(p.toks) {
		return p.toks[p.p+k]
	}
	return ddlToken{}
}

// is tells whether the next token is keyword kw (unquoted).
func (p *ddlParser) is(kw string) bool {
	t := p.peek(0)
	return t.kind == 'w' && !t.quoted && strings.EqualFold(t.text, kw)
}

// accept takes keyword kw if it is next.
func (p *ddlParser) accept(kw string) bool {
	if p.is(kw) {
		p.p++
		return true
	}
	return false
}

func (p *ddlParser) punct(s string) bool {
	if t := p.peek(0); t.kind == 'p' && t.text == s {
		p.p++
		return true
	}
	return false
}

func (p *ddlParser) done() bool {
	return p.p >= len(p.toks) || p.peek(0).kind == 'p' && p.peek(0).text == ";"
}

// ident takes an identifier.
func (p *ddlParser) ident(what string) (string, error) {
	t := p.peek(0)
	if t.kind != 'w' {
		return "", fmt.Errorf("%s expected at %q", what, p.rest())
	}
	p.p++
	return t.text, nil
}

// rest is the text from the current token on, for errors.
func (p *ddlParser) rest() string {
	var parts []string
	rest := p.toks[min(p.p, len(p.toks)):]
	for i, t := range rest {
		if i == 6 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, t.text)
	}
	return strings.Join(parts, " ")
}

// skipGroup skips a balanced parenthesised group starting at "(".
func (p *ddlParser) skipGroup() {
	depth := 0
	for ; p.p < len(p.toks); p.p++ {
		t := p.toks[p.p]
		if t.kind == 'p' && t.text == "(" {
			depth++
		}
		if t.kind == 'p' && t.text == ")" {
			depth--
			if depth == 0 {
				p.p++
				return
			}
		}
	}
}

// skipClause skips to the end of the current clause: the next comma
// outside parentheses, or the end.
func (p *ddlParser) skipClause() {
	for !p.done() {
		switch t := p.peek(0); {
		case t.kind == 'p' && t.text == "(":
			p.skipGroup()
		case t.kind == 'p' && t.text == ",":
			return
		default:
			p.p++
		}
	}
}

// parseAlter reads an ALTER TABLE statement (schema is its default
// database): the table as db.table and its column clauses, in order.
// isAlter is false for any other statement.
func parseAlter(q, schema string) (table string, clauses []alterClause, isAlter bool, err error) {
	toks, err := tokenize(q)
	if err != nil {
		return "", nil, false, err
	}
	p := &ddlParser{toks: toks}
	if !p.accept("ALTER") {
		return "", nil, false, nil
	}
	for p.accept("ONLINE") || p.accept("OFFLINE") || p.accept("IGNORE") {
	}
	if !p.accept("TABLE") {
		return "", nil, false, nil
	}
	p.accept("IF") // MariaDB's IF EXISTS
	p.accept("EXISTS")
	name, err := p.ident("a table name")
	if err != nil {
		return "", nil, true, err
	}
	table = schema + "." + name
	if p.punct(".") {
		t, err := p.ident("a table name")
		if err != nil {
			return "", nil, true, err
		}
		table = name + "." + t
	}
	if p.accept("WAIT") || p.accept("NOWAIT") { // MariaDB: WAIT n
		if p.peek(0).kind == 'n' {
			p.p++
		}
	}
	for more := !p.done(); more; {
		cs, err := p.clause()
		if err != nil {
			return table, nil, true, err
		}
		clauses = append(clauses, cs...)
		if more = p.punct(","); !more && !p.done() {
			return table, nil, true, fmt.Errorf("a comma expected at %q", p.rest())
		}
	}
	return table, clauses, true, nil
}

// clause reads one clause of an ALTER TABLE: its column clauses, none
// for a clause that changes no column.
func (p *ddlParser) clause() ([]alterClause, error) {
	if p.done() {
		return nil, fmt.Errorf("a clause expected after the comma")
	}
	start := p.rest()
	switch {
	case p.accept("ADD"):
		if p.isKeyWord() {
			p.skipClause() // ADD INDEX, KEY, PRIMARY KEY, CONSTRAINT, …
			return nil, nil
		}
		p.accept("COLUMN")
		maybe := p.is("IF") && strings.EqualFold(p.peek(1).text, "NOT")
		if maybe { // MariaDB's IF NOT EXISTS
			p.p += 3
		}
		if p.punct("(") {
			var out []alterClause
			for {
				c, err := p.columnClause(row.AddColumn, "")
				if err != nil {
					return nil, err
				}
				c.maybe = maybe
				out = append(out, c)
				if p.punct(")") {
					return out, nil
				}
				if !p.punct(",") {
					return nil, fmt.Errorf("a comma expected at %q", p.rest())
				}
			}
		}
		c, err := p.columnClause(row.AddColumn, "")
		c.maybe = maybe
		return []alterClause{c}, err
	case p.accept("DROP"):
		if p.isKeyWord() || p.is("CHECK") {
			p.skipClause() // DROP INDEX, KEY, PRIMARY KEY, FOREIGN KEY, CONSTRAINT, CHECK
			return nil, nil
		}
		p.accept("COLUMN")
		maybe := p.ifExists()
		name, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		p.accept("RESTRICT")
		p.accept("CASCADE")
		return []alterClause{{change: row.ColumnChange{Op: row.DropColumn, Name: name}, maybe: maybe}}, nil
	case p.accept("CHANGE"):
		p.accept("COLUMN")
		maybe := p.ifExists()
		old, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		c, err := p.columnClause(row.ChangeColumn, old)
		c.maybe = maybe
		return []alterClause{c}, err
	case p.accept("MODIFY"):
		p.accept("COLUMN")
		maybe := p.ifExists()
		if n := p.peek(0); n.kind == 'w' {
			c, err := p.columnClause(row.ChangeColumn, n.text)
			c.maybe = maybe
			return []alterClause{c}, err
		}
		return nil, fmt.Errorf("a column name expected at %q", p.rest())
	case p.is("RENAME") && (strings.EqualFold(p.peek(1).text, "COLUMN") && p.peek(1).kind == 'w' && !p.peek(1).quoted):
		p.p += 2
		old, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		if !p.accept("TO") {
			return nil, fmt.Errorf("TO expected at %q", p.rest())
		}
		name, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		return []alterClause{{change: row.ColumnChange{Op: row.RenameColumn, Name: old}, def: jdbc.MySQLColumn{Name: name}}}, nil
	case p.is("RENAME") && (p.peek(1).kind == 'w' && !p.peek(1).quoted && (strings.EqualFold(p.peek(1).text, "INDEX") || strings.EqualFold(p.peek(1).text, "KEY"))):
		p.skipClause()
		return nil, nil
	case p.is("ALTER") || p.is("RENAME") || p.is("CONVERT"):
		return nil, fmt.Errorf("%q is not carried (only ADD, DROP, CHANGE, MODIFY and RENAME COLUMN are)", start)
	}
	// Table options, ALGORITHM, LOCK, FORCE, ORDER BY, partitions,
	// ENABLE/DISABLE KEYS: no column changes.
	p.skipClause()
	return nil, nil
}

// isKeyWord tells whether an ADD / DROP is of a key, an index or a
// constraint rather than a column.
func (p *ddlParser) isKeyWord() bool {
	for _, kw := range []string{"INDEX", "KEY", "PRIMARY", "UNIQUE", "FULLTEXT", "SPATIAL", "CONSTRAINT", "FOREIGN", "PARTITION", "PERIOD", "SYSTEM"} {
		if p.is(kw) {
			return true
		}
	}
	return false
}

// ifExists takes MariaDB's IF EXISTS, telling whether it was there.
func (p *ddlParser) ifExists() bool {
	if p.is("IF") && strings.EqualFold(p.peek(1).text, "EXISTS") {
		p.p += 2
		return true
	}
	return false
}

// columnClause reads "c def [FIRST | AFTER p]" of an ADD, CHANGE or
// MODIFY (old is the column changed).
func (p *ddlParser) columnClause(op row.ColumnOp, old string) (alterClause, error) {
	name, err := p.ident("a column name")
	if err != nil {
		return alterClause{}, err
	}
	c := alterClause{change: row.ColumnChange{Op: op, Name: old}, def: jdbc.MySQLColumn{Name: name, Nullable: true}}
	if err := p.columnDef(&c); err != nil {
		return alterClause{}, fmt.Errorf("column %s: %w", name, err)
	}
	return c, nil
}

// typeWords are MySQL's type names that take a second word.
var typeWords = map[string]string{"double precision": "double", "character varying": "varchar", "char varying": "varchar",
	"long varchar": "mediumtext", "long varbinary": "mediumblob", "national char": "char", "national varchar": "varchar",
	"nchar varchar": "varchar", "national character": "char"}

// typeAliases are the type names MySQL stores as others.
var typeAliases = map[string]string{"integer": "int", "bool": "tinyint(1)", "boolean": "tinyint(1)", "dec": "decimal",
	"numeric": "decimal", "fixed": "decimal", "real": "double", "character": "char", "nchar": "char", "nvarchar": "varchar",
	"int1": "tinyint", "int2": "smallint", "int3": "mediumint", "int4": "int", "int8": "bigint", "middleint": "mediumint",
	"float4": "float", "float8": "double", "long": "mediumtext", "serial": "bigint unsigned"}

// columnDef reads a column definition: the type, then its attributes.
func (p *ddlParser) columnDef(c *alterClause) error {
	t := p.peek(0)
	if t.kind != 'w' {
		return fmt.Errorf("a type expected at %q", p.rest())
	}
	p.p++
	typ := strings.ToLower(t.text)
	if n := p.peek(0); n.kind == 'w' && !n.quoted {
		if two, ok := typeWords[typ+" "+strings.ToLower(n.text)]; ok {
			typ = two
			p.p++
		}
	}
	if a, ok := typeAliases[typ]; ok {
		typ = a
	}
	if p.punct("(") { // the type's arguments, as the catalog writes them
		var args []string
		for !p.punct(")") {
			a := p.peek(0)
			if a.kind == 0 {
				return fmt.Errorf("an unterminated type")
			}
			p.p++
			switch a.kind {
			case 's':
				args = append(args, "'"+strings.ReplaceAll(a.text, "'", "''")+"'")
			case 'p':
				if a.text != "," {
					return fmt.Errorf("%q in the type's arguments", a.text)
				}
			default:
				args = append(args, a.text)
			}
		}
		if strings.Contains(typ, "(") { // an alias with its own arguments
			return fmt.Errorf("type %s takes no arguments", t.text)
		}
		typ += "(" + strings.Join(args, ",") + ")"
	} else if typ == "decimal" {
		typ = "decimal(10,0)"
	}
	for {
		switch {
		case p.accept("UNSIGNED"):
			typ += " unsigned"
		case p.accept("SIGNED"):
		case p.accept("ZEROFILL"):
			if !strings.Contains(typ, "unsigned") {
				typ += " unsigned"
			}
			typ += " zerofill"
		case p.accept("BINARY") || p.accept("ASCII") || p.accept("UNICODE") || p.accept("BYTE"):
		default:
			goto attrs
		}
	}
attrs:
	c.def.Type = typ
	if strings.EqualFold(t.text, "serial") { // BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE
		c.def.Nullable = false
	}
	for !p.done() && !(p.peek(0).kind == 'p' && (p.peek(0).text == "," || p.peek(0).text == ")")) {
		switch {
		case p.accept("NOT"):
			if !p.accept("NULL") {
				return fmt.Errorf("NOT NULL expected at %q", p.rest())
			}
			c.def.Nullable = false
		case p.accept("NULL"):
			c.def.Nullable = true
		case p.accept("DEFAULT"):
			d, err := p.defaultValue()
			if err != nil {
				return err
			}
			c.change.Default = d
		case p.accept("COMMENT"):
			s := p.peek(0)
			if s.kind != 's' {
				return fmt.Errorf("a comment string expected at %q", p.rest())
			}
			p.p++
			c.def.Comment = s.text
		case p.accept("CHARACTER"):
			if !p.accept("SET") {
				return fmt.Errorf("CHARACTER SET expected at %q", p.rest())
			}
			fallthrough
		case p.accept("CHARSET"):
			cs, err := p.ident("a character set")
			if err != nil {
				return err
			}
			c.charset = strings.ToLower(cs)
		case p.accept("COLLATE"), p.accept("COLUMN_FORMAT"), p.accept("STORAGE"), p.accept("ENGINE_ATTRIBUTE"), p.accept("SECONDARY_ENGINE_ATTRIBUTE"):
			p.punct("=")
			p.p++
		case p.accept("AUTO_INCREMENT"), p.accept("VISIBLE"), p.accept("INVISIBLE"), p.accept("UNIQUE"), p.accept("PRIMARY"), p.accept("KEY"):
		case p.accept("ON"):
			if !p.accept("UPDATE") {
				return fmt.Errorf("ON UPDATE expected at %q", p.rest())
			}
			if _, err := p.defaultValue(); err != nil {
				return err
			}
		case p.accept("FIRST"):
			c.change.First = true
		case p.accept("AFTER"):
			a, err := p.ident("a column name")
			if err != nil {
				return err
			}
			c.change.After = a
		case p.is("GENERATED") || p.is("AS") || p.is("VIRTUAL") || p.is("PERSISTENT") || p.is("STORED"):
			return fmt.Errorf("a generated column is not carried")
		case p.accept("CHECK"):
			p.skipGroup()
		case p.accept("REFERENCES"):
			p.skipClause()
			return nil
		default:
			return fmt.Errorf("%q is not understood in a column definition", p.rest())
		}
	}
	return nil
}

// defaultValue reads a DEFAULT's value as portable SQL text: a quoted
// string, a number, NULL, TRUE / FALSE, CURRENT_TIMESTAMP (for NOW(),
// LOCALTIME and the like, with or without a precision), or an expression
// in parentheses as written.
func (p *ddlParser) defaultValue() (string, error) {
	t := p.peek(0)
	sign := ""
	if t.kind == 'p' && (t.text == "-" || t.text == "+") {
		p.p++
		sign, t = t.text, p.peek(0)
		if t.kind != 'n' {
			return "", fmt.Errorf("a number expected at %q", p.rest())
		}
	}
	switch {
	case t.kind == 's':
		p.p++
		return "'" + strings.ReplaceAll(t.text, "'", "''") + "'", nil
	case t.kind == 'n':
		p.p++
		return strings.TrimPrefix(sign, "+") + t.text, nil
	case t.kind == 'p' && t.text == "(":
		start := p.p
		p.skipGroup()
		var parts []string
		for _, x := range p.toks[start:p.p] {
			if x.kind == 's' {
				parts = append(parts, "'"+strings.ReplaceAll(x.text, "'", "''")+"'")
			} else {
				parts = append(parts, x.text)
			}
		}
		return strings.Join(parts, " "), nil
	case t.kind == 'w' && !t.quoted:
		p.p++
		w := strings.ToUpper(t.text)
		switch w {
		case "NULL", "TRUE", "FALSE":
			return w, nil
		case "CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP":
			if p.punct("(") {
				for !p.punct(")") {
					if p.done() {
						return "", fmt.Errorf("an unterminated %s(", w)
					}
					p.p++
				}
			}
			return "CURRENT_TIMESTAMP", nil
		}
		// b'0101', x'ff': a prefix word and a string
		if n := p.peek(0); n.kind == 's' && (w == "B" || w == "X" || w == "_BINARY" || w == "_UTF8MB4") {
			p.p++
			return t.text + "'" + strings.ReplaceAll(n.text, "'", "''") + "'", nil
		}
	}
	return "", fmt.Errorf("a default value expected at %q", p.rest())
}
