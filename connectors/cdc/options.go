package cdc

import (
	"fmt"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// CommonOptions are the options SeaTunnel's CDC sources share (its
// JdbcSourceOptions and SourceOptions), with their defaults. A dialect
// adds its own (slot.name, server-id, ...) in Spec.Options.
var CommonOptions = []config.Option{
	{Key: "base-url", Type: config.TypeString, Required: true, Doc: "the JDBC URL of the server: jdbc:postgresql://host:port/db, jdbc:mysql://host:port"},
	{Key: "username", Type: config.TypeString, Required: true, Doc: "user name"},
	{Key: "password", Type: config.TypeString, Required: true, Doc: "password"},
	{Key: "database-names", Type: config.TypeStrings, Doc: "the databases to capture"},
	{Key: "table-names", Type: config.TypeStrings, Required: true, Doc: "the tables to capture, with their database (database.schema.table for PostgreSQL, database.table for MySQL); an entry may list several, comma-separated"},
	{Key: "table-names-config", Type: config.TypeList, Doc: "per table: {table, primaryKeys, snapshotSplitColumn}"},
	{Key: "startup.mode", Type: config.TypeEnum, Enum: []string{"INITIAL", "EARLIEST", "LATEST", "SPECIFIC"}, Default: "INITIAL", Doc: "initial: snapshot then stream; earliest, latest, specific: stream only"},
	{Key: "stop.mode", Type: config.TypeEnum, Enum: []string{"NEVER", "LATEST", "SPECIFIC"}, Default: "NEVER", Doc: "never: stream until cancelled; latest: stop at the log's end at start; specific: at stop.specific-offset.*"},
	{Key: "snapshot.split.size", Type: config.TypeInt, Default: int64(8096), Doc: "rows per snapshot chunk"},
	{Key: "snapshot.fetch.size", Type: config.TypeInt, Default: int64(1024), Doc: "rows per fetch of a snapshot read"},
	{Key: "chunk-key.even-distribution.factor.upper-bound", Type: config.TypeFloat, Default: 100.0, Doc: "accepted for SeaTunnel's job files: chunks are cut at every snapshot.split.size-th key by an indexed query"},
	{Key: "chunk-key.even-distribution.factor.lower-bound", Type: config.TypeFloat, Default: 0.05, Doc: "see chunk-key.even-distribution.factor.upper-bound"},
	{Key: "sample-sharding.threshold", Type: config.TypeInt, Default: int64(1000), Doc: "see chunk-key.even-distribution.factor.upper-bound"},
	{Key: "inverse-sampling.rate", Type: config.TypeInt, Default: int64(1000), Doc: "see chunk-key.even-distribution.factor.upper-bound"},
	{Key: "exactly_once", Type: config.TypeBool, Default: false, Doc: "backfill each snapshot chunk between its watermarks, so no change is lost or repeated"},
	{Key: "format", Type: config.TypeEnum, Enum: []string{"DEFAULT", "COMPATIBLE_DEBEZIUM_JSON"}, Default: "DEFAULT", Doc: "DEFAULT: each table's rows with their kinds; COMPATIBLE_DEBEZIUM_JSON: one table default.default of (topic, key, value) Debezium JSON strings, one row per change (debezium.md)"},
	{Key: "server-time-zone", Type: config.TypeString, Default: "UTC", Doc: "the session time zone"},
	{Key: "connect.timeout.ms", Type: config.TypeDuration, Default: int64(30000), Fallbacks: []string{"connect.timeout"}, Doc: "time to wait for a connection"},
	{Key: "connect.max-retries", Type: config.TypeInt, Default: int64(3), Doc: "retries of a failed connection"},
	{Key: "connection.pool.size", Type: config.TypeInt, Default: int64(20), Doc: "accepted for SeaTunnel's job files: each part holds one session"},
	{Key: "heartbeat.interval.ms", Type: config.TypeDuration, Default: int64(30000), Doc: "how often an idle stream moves its offset on (and confirms it to the server)"},
	{Key: "incremental.parallelism", Type: config.TypeInt, Default: int64(1), Doc: "accepted for SeaTunnel's job files: the stream is one split"},
	{Key: "schema-changes.enabled", Type: config.TypeBool, Default: false, Doc: "carry ALTER TABLE of a captured table into the output schema and the sinks (SeaTunnel's schema evolution): MySQL-CDC ADD, DROP, CHANGE, MODIFY and RENAME COLUMN, Postgres-CDC ADD COLUMN; other DDL stays an error. debezium { include.schema.changes = true } turns it on too"},
	{Key: "debezium", Type: config.TypeObject, Doc: "accepted for SeaTunnel's job files; Debezium is not used (include.schema.changes = true is schema-changes.enabled)"},
}

// TableConfig is one entry of table-names-config.
type TableConfig struct {
	Table       string
	PrimaryKeys []string
	SplitColumn string
}

// Options are the common options, checked.
type Options struct {
	BaseURL, Username, Password string
	Databases                   []string
	Tables                      []string // table-names, each entry split on commas
	TableConfigs                []TableConfig
	Startup                     StartupMode
	Stop                        StopMode
	SplitSize, FetchSize        int
	ExactlyOnce                 bool
	Format                      string
	ServerTimeZone              *time.Location
	ConnectTimeout              time.Duration
	MaxRetries                  int
	Heartbeat                   time.Duration
	// SchemaChanges is schema-changes.enabled (or Debezium's
	// include.schema.changes, as SeaTunnel's older job files say it).
	SchemaChanges bool
}

// The formats.
const (
	FormatDefault    = "DEFAULT"
	minHeartbeat     = 100 * time.Millisecond
	defaultHeartbeat = 30 * time.Second
)

// ParseOptions checks the common options of cfg.
func ParseOptions(cfg *config.PluginConfig) (*Options, error) {
	o := &Options{BaseURL: cfg.String("base-url"), Username: cfg.String("username"), Password: cfg.String("password"),
		Databases: cfg.Strings("database-names"), Startup: StartupMode(strings.ToUpper(cfg.String("startup.mode"))),
		Stop: StopMode(strings.ToUpper(cfg.String("stop.mode"))), SplitSize: int(cfg.Int("snapshot.split.size")),
		FetchSize: int(cfg.Int("snapshot.fetch.size")), ExactlyOnce: cfg.Bool("exactly_once"),
		Format: strings.ToUpper(cfg.String("format")), ConnectTimeout: cfg.Duration("connect.timeout.ms"),
		MaxRetries: int(cfg.Int("connect.max-retries")), Heartbeat: cfg.Duration("heartbeat.interval.ms")}
	o.SchemaChanges = cfg.Bool("schema-changes.enabled")
	if v := cfg.Lookup("debezium.include.schema.changes"); v != nil && !cfg.Has("schema-changes.enabled") {
		switch strings.ToLower(v.String()) {
		case "true":
			o.SchemaChanges = true
		case "false":
		default:
			return nil, cfg.ErrorAt(v, "debezium", "include.schema.changes is %q, not true or false", v.String())
		}
	}
	for _, e := range cfg.Strings("table-names") {
		for _, t := range strings.Split(e, ",") {
			if t = strings.TrimSpace(t); t != "" {
				o.Tables = append(o.Tables, t)
			}
		}
	}
	if len(o.Tables) == 0 {
		return nil, cfg.Errorf("table-names", "names no table")
	}
	if o.SplitSize <= 0 {
		return nil, cfg.Errorf("snapshot.split.size", "must be positive")
	}
	if o.FetchSize <= 0 {
		return nil, cfg.Errorf("snapshot.fetch.size", "must be positive")
	}
	if o.MaxRetries < 0 {
		return nil, cfg.Errorf("connect.max-retries", "must not be negative")
	}
	if o.ConnectTimeout <= 0 {
		return nil, cfg.Errorf("connect.timeout.ms", "must be positive")
	}
	if o.Heartbeat < minHeartbeat {
		return nil, cfg.Errorf("heartbeat.interval.ms", "must be at least %v", minHeartbeat)
	}
	tz, err := time.LoadLocation(cfg.String("server-time-zone"))
	if err != nil {
		return nil, cfg.Errorf("server-time-zone", "%v", err)
	}
	o.ServerTimeZone = tz
	if v := cfg.Raw("table-names-config"); v != nil {
		for i, it := range v.Items {
			t := it.Get("table")
			if t == nil {
				return nil, cfg.ErrorAt(it, "table-names-config", "item %d has no table", i+1)
			}
			tc := TableConfig{Table: t.String()}
			if pk := it.Get("primaryKeys"); pk != nil {
				for _, k := range pk.Items {
					tc.PrimaryKeys = append(tc.PrimaryKeys, k.String())
				}
				if len(pk.Items) == 0 && pk.String() != "" {
					tc.PrimaryKeys = []string{pk.String()}
				}
			}
			if sc := it.Get("snapshotSplitColumn"); sc != nil {
				tc.SplitColumn = sc.String()
			}
			o.TableConfigs = append(o.TableConfigs, tc)
		}
	}
	return o, nil
}

// TableConfig is the table-names-config entry of a table (by its id), or
// nil.
func (o *Options) TableConfig(id string) *TableConfig {
	for i := range o.TableConfigs {
		if o.TableConfigs[i].Table == id {
			return &o.TableConfigs[i]
		}
	}
	return nil
}

// ChunkKeyOf chooses the chunk key of a table as SeaTunnel does: the
// table's snapshotSplitColumn, else the first primary-key column of a
// chunk-key type, else none (one chunk). It also applies primaryKeys from
// table-names-config to the schema (for tables without one). It returns
// an error naming the table when the configured column cannot be used.
func (o *Options) ChunkKeyOf(s *row.Schema) (string, error) {
	tc := o.TableConfig(s.TableID)
	if tc != nil && len(tc.PrimaryKeys) > 0 {
		for _, k := range tc.PrimaryKeys {
			if s.Index(k) < 0 {
				return "", fmt.Errorf("table-names-config: primary key %q is not a column of %s", k, s.TableID)
			}
		}
		s.PrimaryKey = tc.PrimaryKeys
	}
	if tc != nil && tc.SplitColumn != "" {
		i := s.Index(tc.SplitColumn)
		if i < 0 {
			return "", fmt.Errorf("table-names-config: snapshotSplitColumn %q is not a column of %s", tc.SplitColumn, s.TableID)
		}
		if !ChunkKeyType(s.Fields[i].Type) {
			return "", fmt.Errorf("table-names-config: snapshotSplitColumn %q of %s is %s; a chunk key must be a number, a string or a date", tc.SplitColumn, s.TableID, s.Fields[i].Type)
		}
		if s.Fields[i].Nullable {
			return "", fmt.Errorf("table-names-config: snapshotSplitColumn %q of %s may be null; a chunk key must not be", tc.SplitColumn, s.TableID)
		}
		return tc.SplitColumn, nil
	}
	for _, k := range s.PrimaryKey {
		if i := s.Index(k); i >= 0 && ChunkKeyType(s.Fields[i].Type) {
			return k, nil
		}
	}
	return "", nil
}
