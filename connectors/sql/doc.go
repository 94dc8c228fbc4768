// Package sql is SeaTunnel's Sql transform: a query
//
//	SELECT items FROM table [LATERAL VIEW [OUTER] EXPLODE(x) AS col ...] [WHERE condition]
//
// over the rows of one input table, with SeaTunnel's function library,
// type rules and names for unaliased columns (docs/en/transform-v2/sql.md
// and sql-functions.md), so that a job's query gives the same rows here.
//
// The query is parsed (lexer.go, parser.go) and checked against the input
// schema once at plan time; mistakes are reported with their line and
// column inside the query. The checked tree is compiled into evaluators
// (expr.go and the files per operator and function family) that compute
// a whole column of a batch at a time, as DESIGN §4 asks: a column
// reference is the input column itself, arithmetic and comparisons are
// tight loops over typed vectors, a WHERE becomes a list of selected rows
// that is taken once, and nothing is allocated per row on those paths.
// Functions with more involved semantics run row by row over unboxed
// values.
package sql
