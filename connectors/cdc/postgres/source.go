package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors/cdc"
	"github.com/stactor/stactor/connectors/jdbc"
)

func init() { cdc.Register(Spec) }

// Spec is the Postgres-CDC plugin.
var Spec = cdc.Spec{
	Name:       "Postgres-CDC",
	Connector:  "postgresql",
	ServerName: "postgres_cdc_source",
	Options: []config.Option{
		{Key: "schema-names", Type: config.TypeStrings, Doc: "the schemas to capture (the tables name theirs)"},
		{Key: "slot.name", Type: config.TypeString, Default: "seatunnel", Doc: "the logical replication slot; made when missing, reused when it is this database's and pgoutput's"},
		{Key: "publication.name", Type: config.TypeString, Doc: "the publication of the captured tables (default: the slot's name); made when missing, extended with missing tables"},
		{Key: "decoding.plugin.name", Type: config.TypeString, Default: "pgoutput", Doc: "the logical decoding plugin: pgoutput (decoderbufs, Debezium's, is accepted and read as pgoutput, with a warning)"},
	},
	Resolve: resolve,
	New:     newDialect,
}

// resolved is the dialect's part of the resolved form.
type resolved struct {
	Database    string `json:"database"`
	Slot        string `json:"slot"`
	Publication string `json:"publication"`
}

// tablePrivate is a captured table's private description.
type tablePrivate struct {
	Schema string      `json:"schema"`
	Name   string      `json:"name"`
	Jdbc   *jdbc.Table `json:"jdbc"`
}

func options(cfg *config.PluginConfig, o *cdc.Options) (*jdbc.Conn, resolved, error) {
	var r resolved
	conn, err := jdbc.ParseConn(o.BaseURL, o.Username, o.Password, o.ConnectTimeout)
	if err != nil {
		return nil, r, cfg.Errorf("base-url", "%v", err)
	}
	if !conn.Postgres() {
		return nil, r, cfg.Errorf("base-url", "Postgres-CDC needs a jdbc:postgresql:// URL")
	}
	if _, err := decodingPlugin(cfg); err != nil {
		return nil, r, err
	}
	if o.Startup == cdc.StartupSpecific {
		return nil, r, cfg.Errorf("startup.mode", "specific has no offset options for Postgres-CDC; use initial, earliest or latest")
	}
	if o.Stop == cdc.StopSpecific {
		return nil, r, cfg.Errorf("stop.mode", "specific has no offset options for Postgres-CDC; use never or latest")
	}
	r.Database = conn.Database()
	if r.Database == "" && len(o.Databases) > 0 {
		r.Database = o.Databases[0]
	}
	if r.Database == "" {
		return nil, r, cfg.Errorf("base-url", "names no database (and database-names is empty)")
	}
	if len(o.Databases) > 1 || (len(o.Databases) == 1 && o.Databases[0] != r.Database) {
		return nil, r, cfg.Errorf("database-names", "PostgreSQL captures one database per connection, the URL's %s", r.Database)
	}
	r.Slot = cfg.String("slot.name")
	if !validName(r.Slot) {
		return nil, r, cfg.Errorf("slot.name", "%q: a slot name has lower-case letters, digits and underscores only", r.Slot)
	}
	r.Publication = cfg.String("publication.name")
	if r.Publication == "" {
		r.Publication = r.Slot
	}
	return conn.WithDatabase(r.Database), r, nil
}

// decodingPlugin checks decoding.plugin.name: pgoutput, or decoderbufs
// (Debezium's protobuf plugin, which SeaTunnel's e2e files and Debezium
// users name), which stactor reads as pgoutput: both decode the same
// committed changes of the same tables, and pgoutput is built into
// PostgreSQL, so a job written for decoderbufs runs unchanged on a server
// without it. It reports whether the name was decoderbufs.
func decodingPlugin(cfg *config.PluginConfig) (decoderbufs bool, err error) {
	switch p := cfg.String("decoding.plugin.name"); {
	case strings.EqualFold(p, "pgoutput"):
		return false, nil
	case strings.EqualFold(p, "decoderbufs"):
		return true, nil
	default:
		return false, cfg.Errorf("decoding.plugin.name", "%q: stactor decodes with pgoutput (built into PostgreSQL 10 and later); name pgoutput (decoderbufs is read as pgoutput)", p)
	}
}

func validName(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// resolve checks the server and describes the tables.
func resolve(ctx context.Context, cfg *config.PluginConfig, o *cdc.Options) ([]*cdc.Table, []byte, error) {
	conn, r, err := options(cfg, o)
	if err != nil {
		return nil, nil, err
	}
	if dbufs, _ := decodingPlugin(cfg); dbufs {
		cfg.Warnf("decoding.plugin.name", "decoderbufs is read as pgoutput: stactor decodes the slot %s with pgoutput (built into PostgreSQL), whose change events are the same; name pgoutput to silence this", r.Slot)
	}
	pc, err := connectRetry(ctx, conn, o)
	if err != nil {
		return nil, nil, cfg.Errorf("base-url", "%v", err)
	}
	defer pc.Close(context.Background())
	if err := checkServer(ctx, pc, conn, r); err != nil {
		return nil, nil, cfg.Errorf("base-url", "%v", err)
	}
	schemas := cfg.Strings("schema-names")
	var out []*cdc.Table
	for _, name := range o.Tables {
		parts := strings.Split(name, ".")
		var schema, table string
		switch len(parts) {
		case 3:
			if parts[0] != r.Database {
				return nil, nil, cfg.Errorf("table-names", "table %s is not in database %s", name, r.Database)
			}
			schema, table = parts[1], parts[2]
		case 2:
			schema, table = parts[0], parts[1]
		default:
			return nil, nil, cfg.Errorf("table-names", "table %q: want database.schema.table", name)
		}
		if len(schemas) > 0 && !contains(schemas, schema) {
			return nil, nil, cfg.Errorf("table-names", "table %s is not in schema-names (%s)", name, strings.Join(schemas, ", "))
		}
		jt, err := jdbc.DescribePostgres(ctx, pc, r.Database, schema, table)
		if err != nil {
			return nil, nil, cfg.Errorf("table-names", "%v", err)
		}
		s := jt.Schema()
		if err := checkTable(ctx, pc, s.TableID, jt.Quoted(false)); err != nil {
			return nil, nil, cfg.Errorf("table-names", "%v", err)
		}
		key, err := o.ChunkKeyOf(s)
		if err != nil {
			return nil, nil, cfg.Errorf("table-names-config", "%v", err)
		}
		priv, err := json.Marshal(tablePrivate{Schema: schema, Name: table, Jdbc: jt})
		if err != nil {
			return nil, nil, err
		}
		out = append(out, &cdc.Table{ID: s.TableID, Schema: s, ChunkKey: key, Private: priv})
	}
	b, _ := json.Marshal(r) // plain fields: cannot fail
	return out, b, nil
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

// checkServer checks wal_level, the user's replication privilege and, if
// the slot exists, that it is this database's and pgoutput's.
func checkServer(ctx context.Context, pc *pgx.Conn, conn *jdbc.Conn, r resolved) error {
	var level string
	if err := pc.QueryRow(ctx, "SHOW wal_level").Scan(&level); err != nil {
		return fmt.Errorf("%s: reading wal_level: %w", conn.Where(), err)
	}
	if level != "logical" {
		return fmt.Errorf("%s has wal_level = %s; Postgres-CDC needs logical (ALTER SYSTEM SET wal_level = logical, then restart the server)", conn.Where(), level)
	}
	var repl bool
	if err := pc.QueryRow(ctx, "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user").Scan(&repl); err != nil {
		return fmt.Errorf("%s: reading the user's privileges: %w", conn.Where(), err)
	}
	if !repl {
		return fmt.Errorf("%s: the user has no REPLICATION privilege (ALTER ROLE ... WITH REPLICATION)", conn.Where())
	}
	var plugin, db string
	err := pc.QueryRow(ctx, "SELECT coalesce(plugin, ''), coalesce(database, '') FROM pg_replication_slots WHERE slot_name = $1", r.Slot).Scan(&plugin, &db)
	switch {
	case err == pgx.ErrNoRows:
		return nil
	case err != nil:
		return fmt.Errorf("%s: reading slot %s: %w", conn.Where(), r.Slot, err)
	case plugin != "pgoutput" || db != r.Database:
		return fmt.Errorf("replication slot %q exists for database %q with plugin %q, not this job's (%s, pgoutput): set another slot.name", r.Slot, db, plugin, r.Database)
	}
	return nil
}

// checkTable checks REPLICA IDENTITY FULL (the old rows of UPDATE and
// DELETE) and the SELECT privilege.
func checkTable(ctx context.Context, pc *pgx.Conn, id, quoted string) error {
	var ident string
	var sel bool
	err := pc.QueryRow(ctx, "SELECT relreplident::text, has_table_privilege($1::regclass, 'SELECT') FROM pg_class WHERE oid = $1::regclass", quoted).Scan(&ident, &sel)
	if err != nil {
		return fmt.Errorf("table %s: %w", id, err)
	}
	if !sel {
		return fmt.Errorf("table %s: the user may not SELECT from it (GRANT SELECT ON %s TO ...)", id, quoted)
	}
	if ident != "f" {
		return fmt.Errorf("table %s has REPLICA IDENTITY %s; Postgres-CDC needs FULL for the old rows of updates and deletes (ALTER TABLE %s REPLICA IDENTITY FULL)", id, identName(ident), quoted)
	}
	return nil
}

func identName(s string) string {
	switch s {
	case "d":
		return "DEFAULT"
	case "n":
		return "NOTHING"
	case "i":
		return "USING INDEX"
	}
	return s
}
