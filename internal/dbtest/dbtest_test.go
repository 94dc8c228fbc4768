package dbtest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

var servers Servers

func TestMain(m *testing.M) { os.Exit(servers.Run(m, WithPostgres(), WithMariaDB())) }

func TestPostgresSettings(t *testing.T) {
	pg := servers.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for k, want := range map[string]string{"wal_level": "logical", "max_prepared_transactions": "20", "listen_addresses": "127.0.0.1"} {
		var got string
		if err := conn.QueryRow(ctx, "SELECT current_setting($1)", k).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	// The password user needs its password; a wrong one is refused.
	good := strings.Replace(pg.DSN("postgres"), User+"@", PasswordUser+":"+Password+"@", 1)
	c2, err := pgx.Connect(ctx, good)
	if err != nil {
		t.Fatalf("password user with its password: %v", err)
	}
	c2.Close(ctx)
	bad := strings.Replace(pg.DSN("postgres"), User+"@", PasswordUser+":wrong@", 1)
	if c3, err := pgx.Connect(ctx, bad); err == nil {
		c3.Close(ctx)
		t.Fatal("wrong password accepted")
	} else if !strings.Contains(err.Error(), "password authentication failed") {
		t.Fatalf("wrong password: %v", err)
	}
}

func TestPostgresRestartKeepsData(t *testing.T) {
	pg := servers.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := pg.Exec(ctx, "postgres", "CREATE TABLE keep(x int); INSERT INTO keep VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	if err := pg.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var x int
	if err := conn.QueryRow(ctx, "SELECT x FROM keep").Scan(&x); err != nil || x != 7 {
		t.Fatalf("after restart: %d, %v", x, err)
	}
}

// A SIGKILLed postmaster (Crash) starts again on its port with its
// committed data and its prepared transactions, once its backends are gone.
func TestPostgresCrashKeepsData(t *testing.T) {
	pg := servers.Postgres(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"CREATE TABLE crash(x int)", "INSERT INTO crash VALUES (1)",
		"BEGIN", "INSERT INTO crash VALUES (2)", "PREPARE TRANSACTION 'crash-x'"} {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	port := pg.Port
	if err := pg.Crash(); err != nil {
		t.Fatal(err)
	}
	if conn.Ping(ctx) == nil {
		t.Fatal("a session of the killed server still answers")
	}
	if err := pg.Restart(); err != nil {
		t.Fatal(err)
	}
	if pg.Port != port {
		t.Fatalf("restarted on port %d, was %d", pg.Port, port)
	}
	if err := pg.Exec(ctx, "postgres", "COMMIT PREPARED 'crash-x'"); err != nil {
		t.Fatalf("the prepared transaction did not survive the crash: %v", err)
	}
	c2, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close(ctx)
	var n, sum int
	if err := c2.QueryRow(ctx, "SELECT count(*), sum(x) FROM crash").Scan(&n, &sum); err != nil || n != 2 || sum != 3 {
		t.Fatalf("after the crash: %d rows summing to %d (%v), want 2 and 3", n, sum, err)
	}
}

// WithClients listens beyond loopback and trusts the given networks.
func TestPostgresWithClients(t *testing.T) {
	pg, err := StartPostgres(servers.Dir(), WithClients("10.0.0.0/8"))
	if errors.Is(err, ErrNotInstalled) {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pg.DSN("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var listen string
	if err := conn.QueryRow(ctx, "SELECT current_setting('listen_addresses')").Scan(&listen); err != nil || listen != "*" {
		t.Fatalf("listen_addresses = %q (%v), want *", listen, err)
	}
	var trusted int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_hba_file_rules WHERE address = '10.0.0.0' AND netmask = '255.0.0.0' AND auth_method = 'trust'").Scan(&trusted); err != nil || trusted != 1 {
		t.Fatalf("pg_hba rules trusting 10.0.0.0/8: %d (%v), want 1", trusted, err)
	}
}

func TestMariaDBSettings(t *testing.T) {
	my := servers.MariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", my.DSN("test"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for k, want := range map[string]string{"log_bin": "1", "binlog_format": "ROW", "server_id": "1"} {
		var got string
		if err := db.QueryRowContext(ctx, "SELECT @@"+k).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	c, _ := mysql.ParseDSN(my.DSN("test"))
	c.User, c.Passwd = PasswordUser, "wrong"
	bad, _ := sql.Open("mysql", c.FormatDSN())
	defer bad.Close()
	if err := bad.PingContext(ctx); err == nil || !strings.Contains(err.Error(), "Access denied") {
		t.Fatalf("wrong password: %v", err)
	}
	c.Passwd = Password
	good, _ := sql.Open("mysql", c.FormatDSN())
	defer good.Close()
	if err := good.PingContext(ctx); err != nil {
		t.Fatalf("password user with its password: %v", err)
	}
}

func TestMariaDBRestartKeepsPort(t *testing.T) {
	my := servers.MariaDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := my.Exec(ctx, "test", "CREATE TABLE keep(x int) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	if err := my.Exec(ctx, "test", "INSERT INTO keep VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	port := my.Port
	if err := my.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := my.Restart(); err != nil {
		t.Fatal(err)
	}
	if my.Port != port {
		t.Fatalf("port changed %d -> %d", port, my.Port)
	}
	db, _ := sql.Open("mysql", my.DSN("test"))
	defer db.Close()
	var x int
	if err := db.QueryRowContext(ctx, "SELECT x FROM keep").Scan(&x); err != nil || x != 7 {
		t.Fatalf("after restart: %d, %v", x, err)
	}
}
