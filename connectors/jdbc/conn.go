package jdbc

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// connOptions are the connection options of a source or sink: url,
// user, password, properties and connection_check_timeout_sec. Options in
// properties take precedence over the URL's parameters, as with MySQL's
// driver.
//
// Only Database travels in the resolved form: the rest is read again from
// the checked options where the parts are created (connFrom), so the
// password is never part of what Resolve returns.
type connOptions struct {
	URL          string            `json:"-"`
	User         string            `json:"-"`
	Password     string            `json:"-"`
	Properties   map[string]string `json:"-"`
	CheckTimeout time.Duration     `json:"-"`
	// Database overrides the URL's (a sink whose url names none).
	Database string `json:"database,omitempty"`

	url *jdbcURL
}

func (c *connOptions) parse() error {
	u, err := parseJDBCURL(c.URL)
	if err != nil {
		return err
	}
	c.url = u
	return nil
}

func (c *connOptions) dialect() string { return c.url.dialect }

// param is a connection parameter from properties or the URL.
func (c *connOptions) param(key string) (string, bool) {
	if v, ok := c.Properties[key]; ok {
		return v, true
	}
	v, ok := c.url.params[key]
	return v, ok
}

// user is the user option, else the URL's user parameter.
func (c *connOptions) user() string {
	if c.User != "" {
		return c.User
	}
	v, _ := c.param("user")
	return v
}

func (c *connOptions) password() string {
	if c.Password != "" {
		return c.Password
	}
	v, _ := c.param("password")
	return v
}

// where names the server and user for error messages (never the password).
func (c *connOptions) where() string {
	return fmt.Sprintf("%s as user %q", c.url, c.user())
}

// pgConfig is the pgx configuration: host(s), database (the user's name
// when the URL names none, as PostgreSQL's JDBC driver), sslmode (ssl=true
// means require), currentSchema, ApplicationName, connectTimeout and
// options. It never reads the environment for what the URL leaves out.
func (c *connOptions) pgConfig() (*pgx.ConnConfig, error) {
	q := url.Values{}
	mode := "prefer"
	if v, ok := c.param("ssl"); ok && strings.EqualFold(v, "true") {
		mode = "require"
	}
	if v, ok := c.param("sslmode"); ok {
		mode = v
	}
	q.Set("sslmode", mode)
	timeout := c.CheckTimeout
	if v, ok := c.param("connectTimeout"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("connectTimeout %q is not a number of seconds", v)
		}
		timeout = time.Duration(n) * time.Second
	}
	if timeout > 0 {
		q.Set("connect_timeout", strconv.Itoa(max(1, int(timeout/time.Second))))
	}
	if v, ok := c.param("ApplicationName"); ok {
		q.Set("application_name", v)
	} else {
		q.Set("application_name", "stactor")
	}
	db := c.url.database
	if c.Database != "" {
		db = c.Database
	}
	if db == "" {
		db = c.user()
	}
	u := &url.URL{Scheme: "postgres", Host: strings.Join(c.url.hosts, ","), Path: "/" + db, RawQuery: q.Encode()}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.url, err)
	}
	cfg.User, cfg.Password = c.user(), c.password()
	if v, ok := c.param("currentSchema"); ok {
		cfg.RuntimeParams["search_path"] = v
	}
	if v, ok := c.param("options"); ok {
		cfg.RuntimeParams["options"] = v
	}
	cfg.RuntimeParams["timezone"] = "UTC"
	return cfg, nil
}

// connectPG opens one PostgreSQL session.
func (c *connOptions) connectPG(ctx context.Context) (*pgx.Conn, error) {
	cfg, err := c.pgConfig()
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", c.where(), pgError(err))
	}
	return conn, nil
}

// mysqlConfig is the go-sql-driver configuration. Sessions run in UTC
// (time_zone '+00:00'), so TIMESTAMP columns read and write as the UTC
// wall clock; values are sent inline (interpolated), as Connector/J does
// with rewriteBatchedStatements. useSSL/sslMode, connectTimeout and
// socketTimeout (milliseconds, as Connector/J) are honoured; MySQL's
// driver takes one host, so failover hosts after the first are not used.
func (c *connOptions) mysqlConfig() (*mysql.Config, error) {
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd = c.user(), c.password()
	cfg.Net, cfg.Addr, cfg.DBName = "tcp", c.url.hosts[0], c.url.database
	if c.Database != "" {
		cfg.DBName = c.Database
	}
	cfg.InterpolateParams = true
	cfg.Loc = time.UTC
	cfg.Params = map[string]string{"time_zone": "'+00:00'"}
	cfg.Timeout = c.CheckTimeout
	cfg.TLSConfig = "preferred"
	if v, ok := c.param("useSSL"); ok {
		if strings.EqualFold(v, "false") {
			cfg.TLSConfig = "false"
		} else {
			cfg.TLSConfig = "skip-verify"
		}
	}
	if v, ok := c.param("sslMode"); ok {
		switch strings.ToUpper(v) {
		case "DISABLED":
			cfg.TLSConfig = "false"
		case "PREFERRED":
			cfg.TLSConfig = "preferred"
		case "REQUIRED":
			cfg.TLSConfig = "skip-verify"
		case "VERIFY_CA", "VERIFY_IDENTITY":
			cfg.TLSConfig = "true"
		default:
			return nil, fmt.Errorf("sslMode %q (want DISABLED, PREFERRED, REQUIRED, VERIFY_CA or VERIFY_IDENTITY)", v)
		}
	}
	ms := func(key string) (time.Duration, bool, error) {
		v, ok := c.param(key)
		if !ok {
			return 0, false, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, false, fmt.Errorf("%s %q is not a number of milliseconds", key, v)
		}
		return time.Duration(n) * time.Millisecond, true, nil
	}
	if d, ok, err := ms("connectTimeout"); err != nil {
		return nil, err
	} else if ok && d > 0 {
		cfg.Timeout = d
	}
	if d, ok, err := ms("socketTimeout"); err != nil {
		return nil, err
	} else if ok {
		cfg.ReadTimeout, cfg.WriteTimeout = d, d
	}
	return cfg, nil
}

// openMySQL opens a MySQL/MariaDB pool (sessions are taken from it with
// db.Conn where one session matters).
func (c *connOptions) openMySQL() (*sql.DB, error) {
	cfg, err := c.mysqlConfig()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.url, err)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.url, err)
	}
	return sql.OpenDB(conn), nil
}

// connectMySQL opens a pool and checks it reaches the server.
func (c *connOptions) connectMySQL(ctx context.Context) (*sql.DB, error) {
	db, err := c.openMySQL()
	if err != nil {
		return nil, err
	}
	pctx, cancel := c.checkContext(ctx)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("connect to %s: %w", c.where(), err)
	}
	return db, nil
}

// checkContext bounds a connection check by connection_check_timeout_sec.
func (c *connOptions) checkContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if c.CheckTimeout > 0 {
		return context.WithTimeout(ctx, c.CheckTimeout)
	}
	return context.WithCancel(ctx)
}

// pgError keeps pgx's error but drops the connect string it may quote.
func pgError(err error) error {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return ce.Unwrap()
	}
	return err
}
