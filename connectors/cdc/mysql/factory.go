package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/jdbc"
)

// Options are MySQL-CDC's own, beside cdc.CommonOptions (SeaTunnel's
// MySqlSourceOptions).
var Options = []config.Option{
	{Key: "server-id", Type: config.TypeString, Doc: "the replica id of each reader: a number (5400) or a range with one id per reader (5400-5408); default a random id from 6500"},
	{Key: "startup.specific-offset.file", Type: config.TypeString, Doc: "startup.mode specific: the binlog file to start at"},
	{Key: "startup.specific-offset.pos", Type: config.TypeInt, Doc: "startup.mode specific: the position in startup.specific-offset.file"},
	{Key: "startup.specific-offset.gtid-set", Type: config.TypeString, Doc: "startup.mode specific: start after this GTID set instead (MySQL uuid:1-5 or MariaDB 0-1-42)"},
	{Key: "stop.specific-offset.file", Type: config.TypeString, Doc: "stop.mode specific: the binlog file to stop at"},
	{Key: "stop.specific-offset.pos", Type: config.TypeInt, Doc: "stop.mode specific: the position in stop.specific-offset.file"},
}

func init() { cdc.Register(Spec) }

// Spec is the MySQL-CDC plugin.
var Spec = cdc.Spec{Name: "MySQL-CDC", Connector: "mysql", ServerName: "mysql_binlog_source", Options: Options, Resolve: resolve, New: newDialect}

// resolve connects, checks the server's binlog settings, privileges and
// server ids, and describes the tables.
func resolve(ctx context.Context, cfg *config.PluginConfig, o *cdc.Options) ([]*cdc.Table, []byte, error) {
	u, err := parseURL(o)
	if err != nil {
		return nil, nil, cfg.Errorf("base-url", "%v", err)
	}
	r, err := resolveOffsets(cfg, o)
	if err != nil {
		return nil, nil, err
	}
	if r.ServerID, err = parseServerIDs(cfg.String("server-id"), 64); err != nil {
		return nil, nil, cfg.Errorf("server-id", "%v", err)
	}
	db, err := connect(ctx, u, o)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	if r.Flavor, err = flavorOf(ctx, db); err != nil {
		return nil, nil, err
	}
	where := fmt.Sprintf("%s server %s", r.Flavor, u.Where())
	if err := checkServer(ctx, db, where, r.ServerID); err != nil {
		return nil, nil, err
	}
	names, err := expandTables(ctx, db, o)
	if err != nil {
		return nil, nil, cfg.Errorf("table-names", "%v", err)
	}
	var tables []*cdc.Table
	for _, n := range names {
		dbName, tname, _ := strings.Cut(n, ".")
		desc, err := jdbc.DescribeMySQL(ctx, db, dbName, tname)
		if err != nil {
			return nil, nil, cfg.Errorf("table-names", "%v", err)
		}
		charsets, err := columnCharsets(ctx, db, dbName, tname)
		if err != nil {
			return nil, nil, err
		}
		sch := desc.Schema()
		key, err := o.ChunkKeyOf(sch)
		if err != nil {
			return nil, nil, cfg.Errorf("table-names-config", "%v", err)
		}
		if _, err := newTable(desc, sch, charsets, o.ServerTimeZone, u.ZeroDate()); err != nil {
			return nil, nil, cfg.Errorf("table-names", "%v", err)
		}
		enc, err := json.Marshal(tablePrivate{Jdbc: desc, Charsets: charsets})
		if err != nil {
			return nil, nil, err
		}
		tables = append(tables, &cdc.Table{ID: sch.TableID, Schema: sch, ChunkKey: key, Private: enc})
	}
	b, err := json.Marshal(r)
	return tables, b, err
}

// resolveOffsets checks the startup and stop offsets the options give.
func resolveOffsets(cfg *config.PluginConfig, o *cdc.Options) (resolved, error) {
	var r resolved
	if o.Startup == cdc.StartupSpecific {
		switch {
		case cfg.String("startup.specific-offset.gtid-set") != "":
			r.Start = Offset{GTIDs: cfg.String("startup.specific-offset.gtid-set")}
		case cfg.String("startup.specific-offset.file") != "" && cfg.Has("startup.specific-offset.pos"):
			r.Start = Offset{File: cfg.String("startup.specific-offset.file"), Pos: uint32(cfg.Int("startup.specific-offset.pos"))}
		default:
			return r, cfg.Errorf("startup.mode", "specific needs startup.specific-offset.file and startup.specific-offset.pos, or startup.specific-offset.gtid-set")
		}
	}
	if o.Stop == cdc.StopSpecific {
		if cfg.String("stop.specific-offset.file") == "" || !cfg.Has("stop.specific-offset.pos") {
			return r, cfg.Errorf("stop.mode", "specific needs stop.specific-offset.file and stop.specific-offset.pos")
		}
		r.Stop = Offset{File: cfg.String("stop.specific-offset.file"), Pos: uint32(cfg.Int("stop.specific-offset.pos"))}
	}
	return r, nil
}

// expandTables turns table-names into db.table names: an entry is a
// database.table name, or a pair of regular expressions (as SeaTunnel's
// table-names take: "shop.order_.*") matched whole against the server's
// tables, within database-names when given.
func expandTables(ctx context.Context, db *sql.DB, o *cdc.Options) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	inDatabases := func(d string) bool {
		if len(o.Databases) == 0 {
			return true
		}
		for _, x := range o.Databases {
			if x == d {
				return true
			}
		}
		return false
	}
	var all []string // the server's tables, read when a pattern needs them
	for _, entry := range o.Tables {
		dbName, tname, ok := strings.Cut(entry, ".")
		if !ok || dbName == "" || tname == "" {
			return nil, fmt.Errorf("%q: want database.table", entry)
		}
		if !isPattern(entry) {
			add(entry)
			continue
		}
		re, err := regexp.Compile("^(?:" + entry + ")$")
		if err != nil {
			return nil, fmt.Errorf("%q is not a regular expression: %v", entry, err)
		}
		if all == nil {
			if all, err = serverTables(ctx, db); err != nil {
				return nil, err
			}
		}
		n := 0
		for _, t := range all {
			d, _, _ := strings.Cut(t, ".")
			if re.MatchString(t) && inDatabases(d) {
				add(t)
				n++
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("%q matches no table of the server", entry)
		}
	}
	return out, nil
}

func isPattern(s string) bool { return strings.ContainsAny(s, `*+?[](){}|^$\`) }

func serverTables(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT CONCAT(TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.TABLES
WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys')
ORDER BY 1`)
	if err != nil {
		return nil, fmt.Errorf("listing tables: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// tablePrivate is a table's part of the resolved plan: its columns as
// information_schema describes them and their character sets.
type tablePrivate struct {
	Jdbc     *jdbc.Table `json:"jdbc"`
	Charsets []string    `json:"charsets"`
}

// parseURL reads base-url (with username and password) as Jdbc does.
func parseURL(o *cdc.Options) (*jdbc.Conn, error) {
	u, err := jdbc.ParseConn(o.BaseURL, o.Username, o.Password, o.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	if u.Postgres() {
		return nil, fmt.Errorf("%s is not a MySQL or MariaDB URL (want jdbc:mysql:// or jdbc:mariadb://)", u.Where())
	}
	return u, nil
}

// newDialect makes a part's dialect from the resolved plan, without I/O.
func newDialect(cfg *config.PluginConfig, o *cdc.Options, tables []*cdc.Table, private []byte) (cdc.Dialect, error) {
	var r resolved
	if err := json.Unmarshal(private, &r); err != nil {
		return nil, fmt.Errorf("MySQL-CDC resolved plan: %w", err)
	}
	u, err := parseURL(o)
	if err != nil {
		return nil, cfg.Errorf("base-url", "%v", err)
	}
	driver, err := u.MySQLConfig()
	if err != nil {
		return nil, cfg.Errorf("base-url", "%v", err)
	}
	d := &dialect{o: o, url: u, driver: driver, resolved: r, tables: append([]*cdc.Table(nil), tables...), byID: map[string]int{}}
	for i, t := range tables {
		var p tablePrivate
		if err := json.Unmarshal(t.Private, &p); err != nil {
			return nil, fmt.Errorf("MySQL-CDC resolved table %s: %w", t.ID, err)
		}
		if p.Jdbc == nil {
			return nil, fmt.Errorf("MySQL-CDC resolved table %s has no columns", t.ID)
		}
		tb, err := newTable(p.Jdbc, t.Schema, p.Charsets, o.ServerTimeZone, u.ZeroDate())
		if err != nil {
			return nil, err
		}
		d.my = append(d.my, tb)
		d.byID[t.ID] = i
	}
	return d, nil
}
