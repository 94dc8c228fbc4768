// Package sql is SeaTunnel's Sql transform: a query
//
//	SELECT items FROM table [LATERAL VIEW [OUTER] EXPLODE(x) AS col ...] [WHERE condition]
//
// over the rows of one input table (docs/en/transform-v2/sql.md). The
// package is the transform's registration, its options and how their
// mistakes are reported; the query language itself (parser, type rules,
// SeaTunnel's function library and the compiled evaluator) is package
// sqlengine, which this transform compiles the query with once at plan
// time and runs over each batch.
package sql
