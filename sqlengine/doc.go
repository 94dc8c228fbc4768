// Package sqlengine is the query language of SeaTunnel's Sql transform
// (connectors/sql): the lexer and parser of
//
//	SELECT items FROM table [LATERAL VIEW [OUTER] EXPLODE(x) AS col ...] [WHERE condition]
//
// SeaTunnel's type rules and names for unaliased columns, its function
// library (docs/en/transform-v2/sql-functions.md) and user-defined
// functions (RegisterFunction), so that a job's query gives the same rows
// here as in SeaTunnel.
//
// Compile parses a query and checks it against the input schema once, at
// plan time; mistakes are a *QueryError placed at a line and column inside
// the query. The checked tree is compiled into evaluators (expr.go and the
// files per operator and function family) that compute a whole column of
// a row batch at a time, as DESIGN §4 asks: a column reference is the
// input column itself, arithmetic and comparisons are tight loops over
// typed vectors, a WHERE becomes a list of selected rows that is taken
// once, and nothing is allocated per row on those paths. Functions with
// more involved semantics run row by row over unboxed values. The
// resulting Query is a connectors.Transform in all but name: the Sql
// transform hands it each batch.
//
// Results are Java's, as SeaTunnel computes them: string positions count
// UTF-16 units, case mapping is Unicode's full mapping (String.toUpperCase),
// MOD works in BigDecimal arithmetic, and the math functions round as
// Java's Math does (javamath.go), which Go's math package does not.
package sqlengine
