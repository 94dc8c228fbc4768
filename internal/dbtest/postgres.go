package dbtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// The users every private server has: User needs no password (trust),
// PasswordUser needs Password (for wrong-password tests).
const (
	User         = "stactor"
	PasswordUser = "stactor_pw"
	Password     = "stactor-secret"
)

// pgBinDirs are where Debian puts PostgreSQL's server binaries, which are
// not on PATH there.
var pgBinDirs = []string{"/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin"}

// Postgres is a private PostgreSQL server. Database "postgres" exists;
// CreateDatabase makes more.
type Postgres struct {
	Host string // 127.0.0.1
	Port int
	Dir  string // data, socket and log live below it

	pgCtl    string
	postgres string
	as       *runAs
	exited   chan struct{} // closed when the running postmaster exits
	proc     *os.Process   // the running postmaster
	data     string
	log      string
	port     int // fixed port (0: a free one each Start)
}

// PostgresOption changes how StartPostgres configures the server.
type PostgresOption func(*pgConfig)

type pgConfig struct {
	maxPrepared int
	settings    map[string]string
	port        int
	clients     []string // CIDRs trusted besides loopback
}

// WithMaxPreparedTransactions sets max_prepared_transactions (default 20;
// 0 turns prepared transactions off).
func WithMaxPreparedTransactions(n int) PostgresOption {
	return func(c *pgConfig) { c.maxPrepared = n }
}

// WithPort listens on port instead of a free one (inside a network
// namespace of the test's own, where the usual ports are free).
func WithPort(port int) PostgresOption {
	return func(c *pgConfig) { c.port = port }
}

// WithClients also listens beyond loopback and trusts User connecting from
// the networks cidrs (a test that puts its clients in network namespaces of
// their own, tests/chaos).
func WithClients(cidrs ...string) PostgresOption {
	return func(c *pgConfig) { c.clients = append(c.clients, cidrs...) }
}

// WithSetting adds a postgresql.conf setting.
func WithSetting(key, value string) PostgresOption {
	return func(c *pgConfig) { c.settings[key] = value }
}

// StartPostgres initialises a cluster in a new folder under dir and starts
// it on a free port. Under root the server runs as the postgres system
// user. The error wraps ErrNotInstalled when the binaries are missing.
func StartPostgres(dir string, opts ...PostgresOption) (*Postgres, error) {
	cfg := pgConfig{maxPrepared: 20, settings: map[string]string{}}
	for _, o := range opts {
		o(&cfg)
	}
	initdb, err := findBinary("initdb", pgBinDirs...)
	if err != nil {
		return nil, err
	}
	pgCtl, err := findBinary("pg_ctl", pgBinDirs...)
	if err != nil {
		return nil, err
	}
	server, err := findBinary("postgres", pgBinDirs...)
	if err != nil {
		return nil, err
	}
	as, err := pgUser()
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp(dir, "postgres-")
	if err != nil {
		return nil, err
	}
	p := &Postgres{Host: "127.0.0.1", Dir: base, pgCtl: pgCtl, postgres: server, as: as,
		data: filepath.Join(base, "data"), log: filepath.Join(base, "postgres.log"), port: cfg.port}
	if err := as.chown(base); err != nil {
		return nil, fmt.Errorf("postgres dir: %w", err)
	}
	if err := run(as, initdb, "-D", p.data, "-U", User, "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		return nil, err
	}
	hba := strings.Join([]string{
		"local all all trust",
		"host all " + PasswordUser + " 127.0.0.1/32 scram-sha-256",
		"host all all 127.0.0.1/32 trust",
		"host replication all 127.0.0.1/32 trust",
	}, "\n") + "\n"
	for _, cidr := range cfg.clients {
		hba += "host all all " + cidr + " trust\n"
	}
	if err := os.WriteFile(filepath.Join(p.data, "pg_hba.conf"), []byte(hba), 0o600); err != nil {
		return nil, err
	}
	settings := map[string]string{
		"listen_addresses":          "'127.0.0.1'",
		"unix_socket_directories":   "'" + base + "'",
		"wal_level":                 "logical",
		"max_wal_senders":           "10",
		"max_replication_slots":     "10",
		"max_prepared_transactions": fmt.Sprint(cfg.maxPrepared),
		"max_connections":           "100",
		"fsync":                     "off", // a test server: the OS does not crash, the server may
		"full_page_writes":          "off",
		"shared_buffers":            "64MB",
		"password_encryption":       "'scram-sha-256'",
		"timezone":                  "'UTC'",
	}
	if len(cfg.clients) > 0 {
		settings["listen_addresses"] = "'*'"
	}
	for k, v := range cfg.settings {
		settings[k] = v
	}
	var conf strings.Builder
	for k, v := range settings {
		fmt.Fprintf(&conf, "%s = %s\n", k, v)
	}
	f, err := os.OpenFile(filepath.Join(p.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	_, err = f.WriteString("\n# dbtest\n" + conf.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	if err := as.chown(base); err != nil {
		return nil, err
	}
	if err := p.Start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := p.Exec(ctx, "postgres", fmt.Sprintf("CREATE ROLE %s LOGIN SUPERUSER PASSWORD '%s'", PasswordUser, Password)); err != nil {
		p.Stop()
		return nil, err
	}
	return p, nil
}

// Start starts the server (again, after Stop or Kill) on a free port (or
// the one WithPort fixed): its port may change, so take DSNs after it.
func (p *Postgres) Start() error {
	if p.port != 0 {
		p.Port = p.port
		return p.start()
	}
	var err error
	for try := 0; try < 3; try++ {
		if p.Port, err = freePort(); err != nil {
			return err
		}
		if err = p.start(); err == nil {
			return nil
		}
	}
	return err
}

// Restart starts a stopped server on the port it had, so that DSNs taken
// before stay good (a server "coming back" in a fault test).
func (p *Postgres) Restart() error { return p.start() }

// start runs the postmaster as our child rather than through pg_ctl
// start, which would detach it: with a parent-death signal it ends with
// the test binary even when that dies without running its cleanup (a test
// timeout). pg_ctl then stops it through its pid file.
func (p *Postgres) start() error {
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(p.postgres, "-D", p.data, "-p", strconv.Itoa(p.Port))
	cmd.Stdout, cmd.Stderr = logf, logf
	p.as.apply(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT // immediate shutdown, children included
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	p.exited, p.proc = exited, cmd.Process
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-exited:
			return fmt.Errorf("postgres exited while starting\nserver log:\n%s", readTail(p.log))
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		conn, err := pgx.Connect(ctx, p.DSN("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			<-exited
			return fmt.Errorf("postgres not ready in 60 s: %v\nserver log:\n%s", err, readTail(p.log))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop shuts the server down, ending its sessions.
func (p *Postgres) Stop() error { return p.stop("fast") }

// Kill stops the server as a crash would (immediate mode: no shutdown
// checkpoint, recovery on the next start).
func (p *Postgres) Kill() error { return p.stop("immediate") }

// Crash SIGKILLs the postmaster and waits until it and its backends are
// gone (they notice their parent died and exit), as after a machine's
// kill -9; Restart then recovers from the WAL.
func (p *Postgres) Crash() error {
	if p.proc == nil {
		return errors.New("postgres is not running")
	}
	_ = p.proc.Signal(syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(60 * time.Second):
		return errors.New("postgres did not exit after SIGKILL in 60 s")
	}
	// A new postmaster refuses to start while a backend of the old one is
	// still attached to its shared memory.
	deadline := time.Now().Add(60 * time.Second)
	for backendsLeft(p.data) {
		if time.Now().After(deadline) {
			return errors.New("backends of the killed postgres still run after 60 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// backendsLeft reports whether a process still runs from data (a backend's
// command line names no data dir, but its cwd is data).
func backendsLeft(data string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cwd")
	for _, c := range procs {
		if dir, err := os.Readlink(c); err == nil && dir == data {
			return true
		}
	}
	return false
}

func (p *Postgres) stop(mode string) error {
	err := run(p.as, p.pgCtl, "-D", p.data, "-m", mode, "-w", "stop")
	if p.exited != nil {
		select {
		case <-p.exited:
		case <-time.After(60 * time.Second):
		}
	}
	return err
}

// DSN is a libpq URL of database db for User (no password needed).
func (p *Postgres) DSN(db string) string {
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable", User, p.Host, p.Port, db)
}

// JDBCURL is the JDBC URL of database db, as a job file names it.
func (p *Postgres) JDBCURL(db string) string {
	return fmt.Sprintf("jdbc:postgresql://%s:%d/%s", p.Host, p.Port, db)
}

// Exec runs statements (separated by the caller, one per call is safest)
// in database db as User.
func (p *Postgres) Exec(ctx context.Context, db string, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, p.DSN(db))
	if err != nil {
		return fmt.Errorf("connect to %s: %w", p.DSN(db), err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		return fmt.Errorf("%s: %w", firstLine(sql), err)
	}
	return nil
}

// CreateDatabase creates database name (an identifier, not quoted).
func (p *Postgres) CreateDatabase(ctx context.Context, name string) error {
	return p.Exec(ctx, "postgres", "CREATE DATABASE "+name)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
