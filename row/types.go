package row

import (
	"fmt"
	"strconv"
	"strings"
)

// TypeID names one of SeaTunnel's data types.
type TypeID uint8

// SeaTunnel's types.
const (
	TypeNull TypeID = iota
	TypeString
	TypeBoolean
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeFloat
	TypeDouble
	TypeDecimal
	TypeBytes
	TypeDate
	TypeTime
	TypeTimestamp
	TypeArray
	TypeMap
	TypeRow
	TypeTimestampTZ
)

var typeNames = [...]string{
	TypeNull: "null", TypeString: "string", TypeBoolean: "boolean",
	TypeTinyInt: "tinyint", TypeSmallInt: "smallint", TypeInt: "int",
	TypeBigInt: "bigint", TypeFloat: "float", TypeDouble: "double",
	TypeDecimal: "decimal", TypeBytes: "bytes", TypeDate: "date",
	TypeTime: "time", TypeTimestamp: "timestamp", TypeArray: "array",
	TypeMap: "map", TypeRow: "row", TypeTimestampTZ: "timestamp_tz",
}

func (id TypeID) String() string {
	if int(id) < len(typeNames) {
		return typeNames[id]
	}
	return fmt.Sprintf("TypeID(%d)", id)
}

// Storage is where a column of a type keeps its values.
type Storage uint8

// The column storages: each Column uses exactly one of its vectors (two
// for a timestamp, three for a timestamp_tz).
const (
	StoreNone        Storage = iota // null type: only the null flags
	StoreInt                        // tinyint..bigint, date (days), time (ns of day)
	StoreFloat                      // float, double
	StoreString                     // string
	StoreBool                       // boolean
	StoreBytes                      // bytes
	StoreDecimal                    // decimal
	StoreAny                        // array ([]any), map (*MapValue), row ([]any)
	StoreTimestamp                  // timestamp: Secs and Nanos (see timestamp.go)
	StoreTimestampTZ                // timestamp_tz: Secs, Nanos and Offs (see timestamptz.go)
)

// Type is a SeaTunnel data type. Types are values shared freely; never
// modify one after it is built.
type Type struct {
	ID        TypeID
	Precision int     // decimal
	Scale     int     // decimal
	Elem      *Type   // array element, map value
	Key       *Type   // map key
	Fields    []Field // row
}

// The primitive types, shared.
var (
	Null      = &Type{ID: TypeNull}
	String    = &Type{ID: TypeString}
	Boolean   = &Type{ID: TypeBoolean}
	TinyInt   = &Type{ID: TypeTinyInt}
	SmallInt  = &Type{ID: TypeSmallInt}
	Int       = &Type{ID: TypeInt}
	BigInt    = &Type{ID: TypeBigInt}
	Float     = &Type{ID: TypeFloat}
	Double    = &Type{ID: TypeDouble}
	Bytes     = &Type{ID: TypeBytes}
	Date      = &Type{ID: TypeDate}
	Time      = &Type{ID: TypeTime}
	Timestamp = &Type{ID: TypeTimestamp}
	// TimestampTZ is SeaTunnel's TIMESTAMP WITH TIME ZONE (timestamp_tz,
	// Java's OffsetDateTime): an instant and its UTC offset.
	TimestampTZ = &Type{ID: TypeTimestampTZ}
)

// DecimalOf is decimal(p,s).
func DecimalOf(p, s int) *Type { return &Type{ID: TypeDecimal, Precision: p, Scale: s} }

// ArrayOf is array<elem>.
func ArrayOf(elem *Type) *Type { return &Type{ID: TypeArray, Elem: elem} }

// MapOf is map<key,value>.
func MapOf(key, value *Type) *Type { return &Type{ID: TypeMap, Key: key, Elem: value} }

// RowOf is a nested row with the given fields.
func RowOf(fields ...Field) *Type { return &Type{ID: TypeRow, Fields: fields} }

// Storage tells which vector of a Column holds values of this type.
func (t *Type) Storage() Storage {
	switch t.ID {
	case TypeNull:
		return StoreNone
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeDate, TypeTime:
		return StoreInt
	case TypeTimestamp:
		return StoreTimestamp
	case TypeTimestampTZ:
		return StoreTimestampTZ
	case TypeFloat, TypeDouble:
		return StoreFloat
	case TypeString:
		return StoreString
	case TypeBoolean:
		return StoreBool
	case TypeBytes:
		return StoreBytes
	case TypeDecimal:
		return StoreDecimal
	default:
		return StoreAny
	}
}

// IsNumeric is true for the integer, floating point and decimal types.
func (t *Type) IsNumeric() bool {
	switch t.ID {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble, TypeDecimal:
		return true
	}
	return false
}

// IsInteger is true for tinyint, smallint, int and bigint.
func (t *Type) IsInteger() bool {
	switch t.ID {
	case TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt:
		return true
	}
	return false
}

// Equal compares two types structurally.
func (t *Type) Equal(o *Type) bool {
	if t == o {
		return true
	}
	if t == nil || o == nil || t.ID != o.ID {
		return false
	}
	switch t.ID {
	case TypeDecimal:
		return t.Precision == o.Precision && t.Scale == o.Scale
	case TypeArray:
		return t.Elem.Equal(o.Elem)
	case TypeMap:
		return t.Key.Equal(o.Key) && t.Elem.Equal(o.Elem)
	case TypeRow:
		if len(t.Fields) != len(o.Fields) {
			return false
		}
		for i := range t.Fields {
			if t.Fields[i].Name != o.Fields[i].Name || !t.Fields[i].Type.Equal(o.Fields[i].Type) {
				return false
			}
		}
	}
	return true
}

// String renders the type as SeaTunnel writes it: int, decimal(10, 2),
// array<string>, map<string, int>, row<a int, b string>.
func (t *Type) String() string {
	switch t.ID {
	case TypeDecimal:
		return fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale)
	case TypeArray:
		return "array<" + t.Elem.String() + ">"
	case TypeMap:
		return "map<" + t.Key.String() + ", " + t.Elem.String() + ">"
	case TypeRow:
		var b strings.Builder
		b.WriteString("row<")
		for i, f := range t.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			writeFieldName(&b, f.Name)
			b.WriteByte(' ')
			b.WriteString(f.Type.String())
		}
		b.WriteString(">")
		return b.String()
	}
	return t.ID.String()
}

// writeFieldName writes a nested row's field name so that ParseType reads
// it back: as is when it is a plain identifier, otherwise in backquotes with
// any backquote doubled.
func writeFieldName(b *strings.Builder, name string) {
	plain := name != ""
	for i := 0; i < len(name) && plain; i++ {
		c := name[i]
		plain = c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
	}
	if plain {
		b.WriteString(name)
		return
	}
	b.WriteByte('`')
	b.WriteString(strings.ReplaceAll(name, "`", "``"))
	b.WriteByte('`')
}

// typeAliases maps the names SeaTunnel accepts (case-insensitively) to types.
var typeAliases = map[string]*Type{
	"null": Null, "string": String, "varchar": String, "text": String,
	"boolean": Boolean, "bool": Boolean,
	"tinyint": TinyInt, "byte": TinyInt,
	"smallint": SmallInt, "short": SmallInt,
	"int": Int, "integer": Int,
	"bigint": BigInt, "long": BigInt,
	"float": Float, "real": Float,
	"double": Double,
	"bytes":  Bytes, "binary": Bytes, "varbinary": Bytes,
	"date": Date, "time": Time, "timestamp": Timestamp, "datetime": Timestamp,
	"timestamp_tz": TimestampTZ,
}

// ParseType reads a type as written in a SeaTunnel schema: a primitive name,
// decimal(p, s), array<T>, map<K, V> or row<name T, ...>. Names are
// case-insensitive. A plain "decimal" is decimal(38, 18), SeaTunnel's default.
//
// A row may also be written inline as SeaTunnel writes it inside a type
// string, a HOCON object of name = type (SeaTunnelDataTypeConvertorUtil
// parses it with ConfigFactory.parseString): {a = int, b = string}, with
// ':' for '=', fields separated by commas or newlines, names and types
// quoted or not, and nested rows as {...}; e.g.
// "map<string, {c_int = int\nc_row = {x = bigint}}>". String renders it as
// row<...>.
func ParseType(s string) (*Type, error) {
	p := typeParser{src: s}
	t, err := p.parse()
	if err != nil {
		return nil, fmt.Errorf("bad type %q: %w", s, err)
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, fmt.Errorf("bad type %q: unexpected %q at offset %d", s, p.src[p.pos:], p.pos)
	}
	return t, nil
}

type typeParser struct {
	src string
	pos int
}

func (p *typeParser) space() {
	for p.pos < len(p.src) && (p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\n' || p.src[p.pos] == '\r') {
		p.pos++
	}
}

func (p *typeParser) word() string {
	p.space()
	start := p.pos
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '_' || c == '`' || c == '"' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			p.pos++
			continue
		}
		break
	}
	return strings.Trim(p.src[start:p.pos], "`\"")
}

// fieldName reads a row field's name: a word, or a name in backquotes or
// double quotes (the quote doubled inside), which may hold any character.
func (p *typeParser) fieldName() (string, bool) {
	p.space()
	if p.pos >= len(p.src) || (p.src[p.pos] != '`' && p.src[p.pos] != '"') {
		name := p.word()
		return name, name != ""
	}
	q := p.src[p.pos]
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		if p.src[i] != q {
			b.WriteByte(p.src[i])
			continue
		}
		if i+1 < len(p.src) && p.src[i+1] == q {
			b.WriteByte(q)
			i++
			continue
		}
		p.pos = i + 1
		return b.String(), true
	}
	return "", false
}

func (p *typeParser) expect(c byte) error {
	p.space()
	if p.pos >= len(p.src) || p.src[p.pos] != c {
		if p.pos >= len(p.src) {
			return fmt.Errorf("expected %q at end", c)
		}
		return fmt.Errorf("expected %q at offset %d, found %q", c, p.pos, p.src[p.pos])
	}
	p.pos++
	return nil
}

func (p *typeParser) peek(c byte) bool {
	p.space()
	return p.pos < len(p.src) && p.src[p.pos] == c
}

func (p *typeParser) number() (int, error) {
	p.space()
	start := p.pos
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
	}
	return strconv.Atoi(p.src[start:p.pos])
}

func (p *typeParser) parse() (*Type, error) {
	if p.peek('{') {
		return p.inlineRow()
	}
	name := strings.ToLower(p.word())
	switch name {
	case "":
		return nil, fmt.Errorf("expected a type name at offset %d", p.pos)
	case "decimal", "numeric":
		if !p.peek('(') {
			return DecimalOf(38, 18), nil
		}
		p.pos++
		prec, err := p.number()
		if err != nil {
			return nil, fmt.Errorf("decimal precision: %w", err)
		}
		scale := 0
		if p.peek(',') {
			p.pos++
			if scale, err = p.number(); err != nil {
				return nil, fmt.Errorf("decimal scale: %w", err)
			}
		}
		if err := p.expect(')'); err != nil {
			return nil, err
		}
		if prec < 1 || prec > 38 || scale < 0 || scale > prec {
			return nil, fmt.Errorf("decimal(%d, %d) out of range (precision 1..38, scale 0..precision)", prec, scale)
		}
		return DecimalOf(prec, scale), nil
	case "array":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		elem, err := p.parse()
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return ArrayOf(elem), nil
	case "map":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		k, err := p.parse()
		if err != nil {
			return nil, err
		}
		if err := p.expect(','); err != nil {
			return nil, err
		}
		v, err := p.parse()
		if err != nil {
			return nil, err
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return MapOf(k, v), nil
	case "row", "struct":
		if err := p.expect('<'); err != nil {
			return nil, err
		}
		var fields []Field
		for !p.peek('>') || len(fields) > 0 {
			fname, ok := p.fieldName()
			if !ok {
				return nil, fmt.Errorf("expected a field name at offset %d", p.pos)
			}
			if p.peek(':') {
				p.pos++
			}
			ft, err := p.parse()
			if err != nil {
				return nil, err
			}
			fields = append(fields, Field{Name: fname, Type: ft})
			if p.peek(',') {
				p.pos++
				continue
			}
			break
		}
		if err := p.expect('>'); err != nil {
			return nil, err
		}
		return RowOf(fields...), nil
	}
	if t, ok := typeAliases[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("unknown type name %q", name)
}

// inlineRow reads {name = type, ...}: see ParseType.
func (p *typeParser) inlineRow() (*Type, error) {
	p.pos++ // {
	var fields []Field
	for {
		for p.peek(',') { // HOCON allows extra commas between fields
			p.pos++
		}
		if p.peek('}') {
			p.pos++
			return RowOf(fields...), nil
		}
		if p.pos >= len(p.src) {
			return nil, fmt.Errorf("expected '}' at end")
		}
		name, ok := p.fieldName()
		if !ok {
			return nil, fmt.Errorf("expected a field name at offset %d", p.pos)
		}
		switch {
		case p.peek('=') || p.peek(':'):
			p.pos++
		case p.peek('{'): // HOCON's name { ... }
		default:
			return nil, fmt.Errorf("expected '=' after field %q at offset %d", name, p.pos)
		}
		t, err := p.inlineFieldType()
		if err != nil {
			return nil, err
		}
		fields = append(fields, Field{Name: name, Type: t})
		// A field ends at a comma, a newline or the closing brace.
		end := p.pos
		p.space()
		switch {
		case p.pos < len(p.src) && (p.src[p.pos] == ',' || p.src[p.pos] == '}'):
		case strings.ContainsRune(p.src[p.lastText(end):p.pos], '\n'):
		case p.pos >= len(p.src):
			return nil, fmt.Errorf("expected '}' at end")
		default:
			return nil, fmt.Errorf("expected ',', a newline or '}' after field %q at offset %d", name, p.pos)
		}
	}
}

// lastText is where the whitespace before offset end begins (a type may
// have looked past it for a '(' already).
func (p *typeParser) lastText(end int) int {
	for end > 0 && strings.IndexByte(" \t\r\n", p.src[end-1]) >= 0 {
		end--
	}
	return end
}

// inlineFieldType reads a field's type in an inline row: a type, or a
// type in double quotes (with HOCON's backslash escapes).
func (p *typeParser) inlineFieldType() (*Type, error) {
	if !p.peek('"') {
		return p.parse()
	}
	start := p.pos
	var b strings.Builder
	for i := p.pos + 1; i < len(p.src); i++ {
		c := p.src[i]
		switch {
		case c == '"':
			p.pos = i + 1
			t, err := ParseType(b.String())
			if err != nil {
				return nil, fmt.Errorf("at offset %d: %w", start, err)
			}
			return t, nil
		case c == '\\' && i+1 < len(p.src):
			i++
			switch e := p.src[i]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				b.WriteByte(e)
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil, fmt.Errorf("unterminated quoted type at offset %d", start)
}
