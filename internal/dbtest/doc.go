// Package dbtest starts private database servers for tests: a PostgreSQL
// (initdb + pg_ctl) and a MariaDB (mariadb-install-db + mariadbd), each on a
// free loopback port with its data, socket and logs in a temp dir, so that
// tests never depend on how a machine's own servers are set up (DESIGN
// "Quality bar": real servers, started by the tests). The servers are
// configured for what the connectors need: PostgreSQL with
// wal_level=logical and prepared transactions (Jdbc's exactly-once, the
// CDC connector's replication), MariaDB with a ROW binlog and a server id.
//
// A test package shares one server of each kind through its TestMain:
//
//	var servers dbtest.Servers
//
//	func TestMain(m *testing.M) { os.Exit(servers.Run(m, dbtest.WithPostgres(), dbtest.WithMariaDB())) }
//
//	func TestX(t *testing.T) { pg := servers.Postgres(t); ... }
//
// A test skips, saying which binary is missing, only when the server
// binaries are not installed; any other failure to start fails it.
package dbtest
