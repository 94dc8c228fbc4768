package dbtest

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// Servers are the servers of one test package, started by Run in its
// TestMain and stopped when its tests are done.
type Servers struct {
	pg    *Postgres
	pgErr error
	my    *MariaDB
	myErr error
	dir   string
}

// Option picks a server for Run.
type Option func(*runConfig)

type runConfig struct {
	pg     bool
	pgOpts []PostgresOption
	my     bool
	myOpts []MariaDBOption
}

// WithPostgres starts a PostgreSQL server.
func WithPostgres(opts ...PostgresOption) Option {
	return func(c *runConfig) { c.pg, c.pgOpts = true, opts }
}

// WithMariaDB starts a MariaDB server.
func WithMariaDB(opts ...MariaDBOption) Option {
	return func(c *runConfig) { c.my, c.myOpts = true, opts }
}

// Run starts the chosen servers, runs the tests and stops the servers,
// returning the exit code for os.Exit. A server that cannot start is
// remembered: the tests that ask for it skip (not installed) or fail
// (anything else) with the reason.
func (s *Servers) Run(m *testing.M, opts ...Option) int {
	var cfg runConfig
	for _, o := range opts {
		o(&cfg)
	}
	var err error
	if s.dir, err = os.MkdirTemp("", "stactor-dbtest-"); err != nil {
		fmt.Fprintln(os.Stderr, "dbtest:", err)
		return 1
	}
	defer os.RemoveAll(s.dir)
	if cfg.pg {
		s.pg, s.pgErr = StartPostgres(s.dir, cfg.pgOpts...)
		if s.pg != nil {
			defer s.pg.Stop()
		}
	}
	if cfg.my {
		s.my, s.myErr = StartMariaDB(s.dir, cfg.myOpts...)
		if s.my != nil {
			defer s.my.Stop()
		}
	}
	return m.Run()
}

// Dir is a folder that lives as long as the servers, for more of them.
func (s *Servers) Dir() string { return s.dir }

// Postgres is the package's PostgreSQL server.
func (s *Servers) Postgres(t testing.TB) *Postgres {
	t.Helper()
	need(t, "PostgreSQL", s.pg != nil, s.pgErr)
	return s.pg
}

// MariaDB is the package's MariaDB server.
func (s *Servers) MariaDB(t testing.TB) *MariaDB {
	t.Helper()
	need(t, "MariaDB", s.my != nil, s.myErr)
	return s.my
}

func need(t testing.TB, what string, ok bool, err error) {
	t.Helper()
	switch {
	case ok:
	case errors.Is(err, ErrNotInstalled):
		t.Skipf("%s server binaries missing, skipping: %v", what, err)
	case err != nil:
		t.Fatalf("%s test server did not start: %v", what, err)
	default:
		t.Fatalf("%s test server was not asked for in TestMain", what)
	}
}
