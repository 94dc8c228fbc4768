package dbtest

import (
	"context"
	"database/sql"
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
