package sqlengine

// The syntax tree of a query. Every node knows where it starts in the
// query so that plan-time errors can point at it.

// node is an expression of the syntax tree.
type node interface {
	pos() Pos
}

// identPart is one name of a dotted path, as written.
type identPart struct {
	name   string // without quotes
	raw    string // as written, quotes included
	quoted bool
	at     Pos
}

// identNode is a column reference: a name, or a dotted path into a row or
// map column (c_row.c_inner.c_int), or table.column.
type identNode struct {
	parts []identPart
}

// numberNode is a numeric literal; isInt when it has no point or exponent.
type numberNode struct {
	at    Pos
	raw   string
	isInt bool
}

// stringNode is a 'string' literal.
type stringNode struct {
	at  Pos
	raw string // with quotes, as written
	val string
}

// boolNode is TRUE or FALSE.
type boolNode struct {
	at  Pos
	raw string
	val bool
}

// nullNode is NULL.
type nullNode struct {
	at  Pos
	raw string
}

// typedLitNode is DATE '2024-01-31', TIME '12:00:00' or TIMESTAMP '...'.
type typedLitNode struct {
	at   Pos
	kind string // DATE, TIME, TIMESTAMP (upper case)
	kw   string // as written
	lit  *stringNode
}

// unaryNode is -x, +x or NOT x.
type unaryNode struct {
	at Pos
	op string // "-", "+", "NOT"
	kw string // as written
	x  node
}

// binaryNode is an arithmetic, concatenation, comparison or logical
// operation.
type binaryNode struct {
	op    string // + - * / % || = <> != < <= > >= AND OR
	opRaw string // as written
	opAt  Pos
	l, r  node
}

// isNullNode is x IS [NOT] NULL.
type isNullNode struct {
	x   node
	not bool
	at  Pos // of IS
}

// inNode is x [NOT] IN (a, b, ...).
type inNode struct {
	x    node
	list []node
	not  bool
	at   Pos // of IN (or NOT)
}

// betweenNode is x [NOT] BETWEEN lo AND hi.
type betweenNode struct {
	x, lo, hi node
	not       bool
	at        Pos
}

// likeNode is x [NOT] LIKE pattern [ESCAPE esc].
type likeNode struct {
	x, pattern, escape node
	not                bool
	at                 Pos
}

// whenClause is WHEN cond THEN result.
type whenClause struct {
	cond, result node
}

// caseNode is CASE [operand] WHEN ... THEN ... [ELSE ...] END.
type caseNode struct {
	at      Pos
	operand node // nil for a searched CASE
	whens   []whenClause
	els     node
}

// typeName is the target of a CAST: a name and optional numeric arguments.
type typeName struct {
	at   Pos
	name string // as written
	args []int
}

// castNode is CAST(x AS type) (or CONVERT(x AS type), or TRY_CAST(x AS
// type), which gives NULL where CAST fails).
type castNode struct {
	at  Pos
	kw  string // CAST, CONVERT or TRY_CAST, as written
	x   node
	typ typeName
}

// callNode is a function call name(args), or a niladic time function
// (CURRENT_DATE) written without parentheses.
type callNode struct {
	at       Pos
	name     string // as written
	args     []node
	noParens bool
}

// extractNode is EXTRACT(field FROM x).
type extractNode struct {
	at    Pos
	field string // as written
	fAt   Pos
	x     node
}

// trimNode is TRIM([LEADING|TRAILING|BOTH] [chars] FROM x), the SQL form
// of TRIM; TRIM(x[, chars]) is a plain call.
type trimNode struct {
	at    Pos
	where string // LEADING, TRAILING, BOTH or ""
	chars node   // may be nil
	x     node
}

// indexNode is x[i]: an array element (0-based, as SeaTunnel) or a map value.
type indexNode struct {
	x, index node
	at       Pos // of [
}

// parenNode is (x); kept so that rendering matches SeaTunnel's names.
type parenNode struct {
	at Pos
	x  node
}

func (n *identNode) pos() Pos    { return n.parts[0].at }
func (n *numberNode) pos() Pos   { return n.at }
func (n *stringNode) pos() Pos   { return n.at }
func (n *boolNode) pos() Pos     { return n.at }
func (n *nullNode) pos() Pos     { return n.at }
func (n *typedLitNode) pos() Pos { return n.at }
func (n *unaryNode) pos() Pos    { return n.at }
func (n *binaryNode) pos() Pos   { return n.l.pos() }
func (n *isNullNode) pos() Pos   { return n.x.pos() }
func (n *inNode) pos() Pos       { return n.x.pos() }
func (n *betweenNode) pos() Pos  { return n.x.pos() }
func (n *likeNode) pos() Pos     { return n.x.pos() }
func (n *caseNode) pos() Pos     { return n.at }
func (n *castNode) pos() Pos     { return n.at }
func (n *callNode) pos() Pos     { return n.at }
func (n *extractNode) pos() Pos  { return n.at }
func (n *trimNode) pos() Pos     { return n.at }
func (n *indexNode) pos() Pos    { return n.x.pos() }
func (n *parenNode) pos() Pos    { return n.at }

// selectItem is one entry of the select list: *, or an expression with an
// optional alias.
type selectItem struct {
	star    bool
	starAt  Pos
	expr    node
	alias   string
	aliasAt Pos
}

// lateralView is LATERAL VIEW [OUTER] EXPLODE(expr) [table_alias] AS column.
type lateralView struct {
	at      Pos
	outer   bool
	fn      *callNode
	alias   string
	aliasAt Pos
}

// selectStmt is the whole query.
type selectStmt struct {
	items    []selectItem
	table    string
	tableAt  Pos
	laterals []lateralView
	where    node
}
