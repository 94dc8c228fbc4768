// Package mysql is the MySQL-CDC source (SeaTunnel's connector-cdc-mysql)
// for MySQL and MariaDB: the MySQL side (a cdc.Dialect) of the shared CDC
// framework in connectors/cdc, which owns the options common to CDC
// sources, the splits, the enumerator, the readers, checkpoints and the
// incremental snapshot algorithm.
//
// Design decisions:
//
//   - The binlog is read with go-mysql's replication.BinlogSyncer, which
//     registers as a replica (COM_REGISTER_SLAVE under the reader's
//     server-id) and speaks both flavors' dump protocols; not with canal,
//     whose snapshot runs mysqldump. The snapshot is plain SELECTs over
//     the Jdbc connector's MySQL code (connectors/jdbc/cdc_mysql.go), so a
//     row has the same types and values whichever phase delivers it.
//   - Offsets are binlog file:position at transaction bounds (binlog.go,
//     offset.go). The binlog tells where a transaction ends only at its
//     commit, so a transaction's row changes are held until its XID (or
//     COMMIT) event and delivered then, each with the offset after the
//     commit: the framework restarts after the last transaction it emitted
//     whole and skips the rows of the next one it had emitted. go-mysql's
//     own reconnect (which resumes mid-transaction, without the table
//     maps) is off; a broken connection fails the reader over to the
//     checkpoint. startup.specific-offset.gtid-set starts from a GTID set
//     (either flavor's form); offsets after it are file:position again.
//   - Snapshot watermarks are SHOW MASTER STATUS (SHOW BINARY LOG STATUS on
//     MySQL 8.4) before and after a chunk's SELECT; with exactly_once the
//     framework replays the binlog between them (ReadLog) into the chunk.
//   - Heartbeats: the server is asked for heartbeat events every
//     heartbeat.interval.ms; they, rotations and transactions of tables not
//     captured move the offset on, so an idle table's job does not hold
//     an old binlog position (which the server may purge).
//   - Binlog rows carry no column names. With schema-changes.enabled an
//     ALTER TABLE of a captured table is parsed from its QUERY event
//     (ddl.go) and applied to the table's description (jdbc's AlterMySQL),
//     not read from the catalog, which is the table as it is now and not
//     at that point of the binlog. A table map whose column count (or,
//     with binlog_row_metadata = FULL, whose names) differ from the table
//     so followed, an ALTER the parser cannot carry or one without
//     schema-changes.enabled, and RENAME/DROP/TRUNCATE TABLE of a
//     captured table stop the reader with an error naming the table and
//     the statement, never rows decoded as garbage.
//   - TIMESTAMP columns are read in UTC (snapshot session and binlog) and
//     turned into wall clocks of server-time-zone; DATETIME is a wall clock
//     already.
//   - Prerequisites are checked when the job is resolved (server.go):
//     log_bin, binlog_format = ROW, binlog_row_image = FULL, the
//     REPLICATION SLAVE and REPLICATION CLIENT privileges, and server ids
//     used by the server or another replica; each failure says what to
//     change.
package mysql
