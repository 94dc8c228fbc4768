package dbtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/go-sql-driver/mysql"
)

// MariaDB is a private MariaDB server, with users User (no password) and
// PasswordUser (Password), both with every privilege, and a database
// "test".
type MariaDB struct {
	Host string // 127.0.0.1
	Port int
	Dir  string // data, socket, binlog and log live below it

	mariadbd string
	data     string
	socket   string
	log      string
	cmd      *exec.Cmd
	exited   chan struct{} // closed when cmd has exited
	serverID int
	port     int // fixed port (0: a free one each Start)
}

// MariaDBOption changes how StartMariaDB configures the server.
type MariaDBOption func(*MariaDB)

// WithMariaDBPort listens on port instead of a free one (inside a network
// namespace of the test's own, where the usual ports are free).
func WithMariaDBPort(port int) MariaDBOption {
	return func(m *MariaDB) { m.port = port }
}

var myBinDirs = []string{"/usr/sbin", "/usr/local/mysql/bin"}

// StartMariaDB installs a data dir in a new folder under dir and starts
// mariadbd on a free port, with the binlog on in ROW format. It runs as
// the current user (root here: mariadbd is told so with --user=root). The
// error wraps ErrNotInstalled when the binaries are missing.
func StartMariaDB(dir string, opts ...MariaDBOption) (*MariaDB, error) {
	install, err := findBinary("mariadb-install-db", myBinDirs...)
	if err != nil {
		return nil, err
	}
	server, err := findBinary("mariadbd", myBinDirs...)
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp(dir, "mariadb-")
	if err != nil {
		return nil, err
	}
	m := &MariaDB{Host: "127.0.0.1", Dir: base, mariadbd: server, serverID: 1,
		data: filepath.Join(base, "data"), socket: filepath.Join(base, "mariadb.sock"),
		log: filepath.Join(base, "mariadb.log")}
	for _, o := range opts {
		o(m)
	}
	args := []string{"--no-defaults", "--datadir=" + m.data, "--auth-root-authentication-method=normal",
		"--skip-test-db", "--skip-name-resolve"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if err := run(nil, install, args...); err != nil {
		return nil, err
	}
	if err := m.Start(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", m.rootDSN())
	if err != nil {
		m.Stop()
		return nil, err
	}
	defer db.Close()
	for _, stmt := range []string{
		"CREATE USER '" + User + "'@'%'",
		"GRANT ALL ON *.* TO '" + User + "'@'%' WITH GRANT OPTION",
		"CREATE USER '" + PasswordUser + "'@'%' IDENTIFIED BY '" + Password + "'",
		"GRANT ALL ON *.* TO '" + PasswordUser + "'@'%'",
		"CREATE DATABASE test",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			m.Stop()
			return nil, fmt.Errorf("mariadb setup %q: %w", stmt, err)
		}
	}
	return m, nil
}

// rootDSN reaches root through the socket (root has no TCP account).
func (m *MariaDB) rootDSN() string {
	c := mysql.NewConfig()
	c.User, c.Net, c.Addr = "root", "unix", m.socket
	return c.FormatDSN()
}

// Start starts mariadbd on a free port (again, after Stop or Kill: take
// DSNs after it).
func (m *MariaDB) Start() error {
	if m.port != 0 {
		m.Port = m.port
		return m.start()
	}
	var err error
	for try := 0; try < 3; try++ {
		if m.Port, err = freePort(); err != nil {
			return err
		}
		if err = m.start(); err == nil {
			return nil
		}
	}
	return err
}

// Restart starts a stopped server on the port it had.
func (m *MariaDB) Restart() error { return m.start() }

func (m *MariaDB) start() error {
	args := []string{"--no-defaults",
		"--datadir=" + m.data, "--socket=" + m.socket, "--pid-file=" + filepath.Join(m.Dir, "mariadb.pid"),
		"--port=" + strconv.Itoa(m.Port), "--bind-address=127.0.0.1", "--skip-name-resolve",
		"--log-error=" + m.log,
		"--log-bin=" + filepath.Join(m.Dir, "binlog"), "--binlog-format=ROW", "--binlog-row-image=FULL",
		"--server-id=" + strconv.Itoa(m.serverID),
		"--innodb-buffer-pool-size=128M", "--innodb-flush-log-at-trx-commit=2", "--sync-binlog=0",
		"--max-connections=200", "--default-time-zone=+00:00",
		"--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin",
	}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	cmd := exec.Command(m.mariadbd, args...)
	// The server dies with the test binary instead of outliving it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mariadbd: %w", err)
	}
	m.cmd, m.exited = cmd, make(chan struct{})
	go func(done chan struct{}) { cmd.Wait(); close(done) }(m.exited)
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-m.exited:
			return fmt.Errorf("mariadbd exited while starting\nserver log:\n%s", readTail(m.log))
		default:
		}
		if m.ping() == nil {
			return nil
		}
		if time.Now().After(deadline) {
			m.Kill()
			return fmt.Errorf("mariadbd not ready in 60 s\nserver log:\n%s", readTail(m.log))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (m *MariaDB) ping() error {
	db, err := sql.Open("mysql", m.rootDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return db.PingContext(ctx)
}

// Stop shuts mariadbd down cleanly (SIGTERM) and waits for it.
func (m *MariaDB) Stop() error { return m.signal(syscall.SIGTERM) }

// Kill ends mariadbd as a crash would (SIGKILL).
func (m *MariaDB) Kill() error { return m.signal(syscall.SIGKILL) }

func (m *MariaDB) signal(sig syscall.Signal) error {
	if m.cmd == nil {
		return errors.New("mariadbd is not running")
	}
	if err := m.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-m.exited:
	case <-time.After(60 * time.Second):
		m.cmd.Process.Kill()
		<-m.exited
	}
	m.cmd = nil
	return nil
}

// DSN is a go-sql-driver DSN of database db for User.
func (m *MariaDB) DSN(db string) string {
	c := mysql.NewConfig()
	c.User, c.Net, c.Addr, c.DBName = User, "tcp", fmt.Sprintf("%s:%d", m.Host, m.Port), db
	return c.FormatDSN()
}

// JDBCURL is the JDBC URL of database db, as a job file names it.
func (m *MariaDB) JDBCURL(db string) string {
	return fmt.Sprintf("jdbc:mysql://%s:%d/%s", m.Host, m.Port, db)
}

// Exec runs one statement in database db as User.
func (m *MariaDB) Exec(ctx context.Context, db, stmt string, args ...any) error {
	conn, err := sql.Open("mysql", m.DSN(db))
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, stmt, args...); err != nil {
		return fmt.Errorf("%s: %w", firstLine(stmt), err)
	}
	return nil
}

// CreateDatabase creates database name.
func (m *MariaDB) CreateDatabase(ctx context.Context, name string) error {
	return m.Exec(ctx, "", "CREATE DATABASE "+name)
}
