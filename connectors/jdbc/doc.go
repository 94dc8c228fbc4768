// Package jdbc is the Jdbc source and sink (SeaTunnel's connector-jdbc)
// for PostgreSQL and MySQL/MariaDB, in pure Go: pgx for PostgreSQL and
// go-sql-driver/mysql for MySQL and MariaDB. Job files name the JDBC URL
// and the Java driver class as SeaTunnel's do; the URL picks the dialect
// (url.go) and the driver class is checked against it.
//
// Following DESIGN §2, the factories resolve once on the master (Resolve:
// connect, read the catalog tables, check that prepared transactions are
// on for exactly-once) and create the parts from what was resolved,
// without I/O.
//
// Source (source.go, enumerator.go, reader.go): a table or a query is cut
// into splits over a split key chosen as SeaTunnel does (partition_column,
// else the first primary-key or unique column of a splittable type, else
// one split). Splits are made lazily, one indexed query each, so planning
// a huge table costs nothing up front. A reader streams its split in
// split-key order from a fetch goroutine it owns and checkpoints the last
// key it emitted, so a restore resumes after it.
//
// Sink (sink.go, writer.go, committer.go, savemode.go): rows are applied
// by kind (INSERT and UPDATE_AFTER insert or upsert, UPDATE_BEFORE and
// DELETE delete by key) in batches. With is_exactly_once the writes of a
// checkpoint are one prepared transaction (XA on MySQL/MariaDB, PREPARE
// TRANSACTION on PostgreSQL) that the committer commits after the
// checkpoint completes (DESIGN §5), with transaction ids derived from job,
// pipeline, term, attempt, subtask and checkpoint (xa.go).
//
// The type mapping of each dialect is in types_postgres.go and
// types_mysql.go; README.md beside this file documents the options, the
// split planning, exactly-once and the mapping for users.
package jdbc
