package jdbc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/row"
)

// sinkTable is where one input table goes: the target table, its columns
// (the input's fields, renamed by field_ide) and the key of upserts and
// deletes.
type sinkTable struct {
	Input   string    `json:"input"` // the input's table id
	Target  tablePath `json:"target"`
	Columns []string  `json:"columns"`
	Key     []string  `json:"key,omitempty"`
	KeyIdx  []int     `json:"key_idx,omitempty"`
	// Create is the CREATE TABLE statement of the save mode.
	Create string `json:"create,omitempty"`
}

// sinkResolved is the sink's checked options and targets, as Resolve
// found them.
type sinkResolved struct {
	Conn        connOptions  `json:"conn"`
	Tables      []*sinkTable `json:"tables,omitempty"`
	Query       string       `json:"query,omitempty"` // a custom statement, when not generating
	BatchSize   int          `json:"batch_size"`
	MaxRetries  int          `json:"max_retries"`
	Upsert      bool         `json:"upsert"`
	Copy        bool         `json:"copy,omitempty"`
	ExactlyOnce bool         `json:"exactly_once,omitempty"`
	Attempts    int          `json:"commit_attempts"`
	TxTimeout   int          `json:"tx_timeout"`
	SchemaSave  string       `json:"schema_save"`
	DataSave    string       `json:"data_save"`
	CustomSQL   string       `json:"custom_sql,omitempty"`
	FieldIDE    string       `json:"field_ide,omitempty"` // the case of added columns' names
	Replicas    int          `json:"replicas,omitempty"`  // multi_table_sink_replica (replicas.go); 0 is 1
	// ID tells this sink's transactions from other sinks' of the job.
	ID string `json:"id"`

	inputs []*row.Schema
}

// resolveSink checks the options against the inputs and, for
// exactly-once, that the server keeps prepared transactions.
func resolveSink(ctx context.Context, cfg *config.PluginConfig, inputs []*row.Schema) (*sinkResolved, error) {
	conn, err := connFrom(cfg)
	if err != nil {
		return nil, err
	}
	r := &sinkResolved{Conn: conn, BatchSize: int(cfg.Int("batch_size")), MaxRetries: int(cfg.Int("max_retries")),
		Upsert: cfg.Bool("enable_upsert"), Copy: cfg.Bool("use_copy_statement"), ExactlyOnce: cfg.Bool("is_exactly_once"),
		Attempts: int(cfg.Int("max_commit_attempts")), TxTimeout: int(cfg.Int("transaction_timeout_sec")),
		SchemaSave: cfg.String("schema_save_mode"), DataSave: cfg.String("data_save_mode"), CustomSQL: cfg.String("custom_sql"),
		FieldIDE: cfg.String("field_ide"), Replicas: int(cfg.Int("multi_table_sink_replica")), inputs: inputs}
	switch {
	case r.Replicas < 1:
		return nil, cfg.Errorf("multi_table_sink_replica", "must be at least 1, got %d", r.Replicas)
	case r.Replicas > 1 && r.ExactlyOnce:
		return nil, cfg.Errorf("multi_table_sink_replica", "%d writers of a table cannot share is_exactly_once's one prepared transaction per checkpoint: set it to 1, or raise parallelism instead", r.Replicas)
	case r.BatchSize <= 0:
		return nil, cfg.Errorf("batch_size", "must be positive")
	case r.MaxRetries < 0:
		return nil, cfg.Errorf("max_retries", "must not be negative")
	case r.Attempts <= 0:
		return nil, cfg.Errorf("max_commit_attempts", "must be positive")
	case r.Copy && conn.dialect() != dialectPostgres:
		return nil, cfg.Errorf("use_copy_statement", "COPY is PostgreSQL's; the url is jdbc:%s", conn.url.scheme)
	case r.DataSave == "CUSTOM_PROCESSING" && strings.TrimSpace(r.CustomSQL) == "":
		return nil, cfg.Errorf("custom_sql", "data_save_mode CUSTOM_PROCESSING needs custom_sql")
	}
	if r.ExactlyOnce {
		if !cfg.Has("xa_data_source_class_name") {
			return nil, cfg.Errorf("xa_data_source_class_name", "is required with is_exactly_once (%s)", strings.Join(xaClasses[conn.dialect()], " or "))
		}
		if err := checkClass("xa_data_source_class_name", cfg.String("xa_data_source_class_name"), conn.url, xaClasses); err != nil {
			return nil, cfg.Errorf("xa_data_source_class_name", "%v", err)
		}
	}
	generate := cfg.Bool("generate_sink_sql") || cfg.Has("table")
	if !generate {
		if strings.TrimSpace(cfg.String("query")) == "" {
			return nil, cfg.Errorf("query", "set query, or generate_sink_sql with database and table")
		}
		r.Query = strings.TrimRight(strings.TrimSpace(cfg.String("query")), ";")
		r.SchemaSave, r.DataSave = "IGNORE", "APPEND_DATA" // no table to manage
	} else {
		ide := cfg.String("field_ide")
		for _, in := range inputs {
			t, err := sinkTableOf(cfg, &r.Conn, in, ide)
			if err != nil {
				return nil, err
			}
			r.Tables = append(r.Tables, t)
		}
	}
	if r.Replicas > 1 {
		if r.Query != "" {
			return nil, cfg.Errorf("multi_table_sink_replica", "%d writers route rows by primary key, and a custom query has none: set it to 1, or generate the statements (generate_sink_sql, database, table) with primary_keys", r.Replicas)
		}
		for _, t := range r.Tables {
			if len(t.Key) == 0 {
				return nil, cfg.Errorf("multi_table_sink_replica", "%d writers route rows by primary key, so that all changes of a row go to one writer in order, and table %s has none: set primary_keys, or set it to 1", r.Replicas, t.Input)
			}
		}
	}
	h := sha256.Sum256([]byte(conn.URL + "\x00" + r.Query + "\x00" + fmt.Sprint(r.targets())))
	r.ID = hex.EncodeToString(h[:3])

	cctx, cancel := r.Conn.checkContext(ctx)
	defer cancel()
	if err := checkServer(cctx, &r.Conn, r.ExactlyOnce); err != nil {
		return nil, cfg.Errorf("url", "%v", err)
	}
	return r, nil
}

func (r *sinkResolved) targets() []string {
	var out []string
	for _, t := range r.Tables {
		out = append(out, t.Target.String())
	}
	return out
}

// sinkTableOf is the target of input table in: database and table, with
// ${database_name}, ${schema_name} and ${table_name} of the input filled
// in (the input's own name when table is unset).
func sinkTableOf(cfg *config.PluginConfig, conn *connOptions, in *row.Schema, ide string) (*sinkTable, error) {
	parts := strings.Split(in.TableID, ".")
	name := parts[len(parts)-1]
	vars := map[string]string{"${table_name}": name, "${database_name}": parts[0], "${schema_name}": ""}
	if len(parts) == 3 {
		vars["${schema_name}"] = parts[1]
	}
	fill := func(s string) string {
		for k, v := range vars {
			s = strings.ReplaceAll(s, k, v)
		}
		return s
	}
	tname := cfg.String("table")
	if tname == "" {
		tname = "${table_name}"
	}
	tname = fill(catalogNames(cfg, tname, conn.dialect() == dialectPostgres))
	db := fill(cfg.String("database"))
	if db == "" {
		db = conn.url.database
	}
	var path tablePath
	var err error
	if conn.dialect() == dialectPostgres {
		path, err = parseTablePath(tname, dialectPostgres, db)
		if err == nil && conn.url.database != "" && path.Database != conn.url.database {
			err = fmt.Errorf("database %s differs from the url's %s (PostgreSQL writes one database per connection)", path.Database, conn.url.database)
		}
		if err == nil && conn.url.database == "" {
			conn.Database = path.Database // the url names none: connect to the target's
		}
	} else {
		if !strings.Contains(tname, ".") && db != "" {
			tname = db + "." + tname
		}
		path, err = parseTablePath(tname, dialectMySQL, db)
	}
	if err != nil {
		return nil, cfg.Errorf("table", "%v", err)
	}
	t := &sinkTable{Input: in.TableID, Target: path}
	for _, f := range in.Fields {
		t.Columns = append(t.Columns, caseOf(f.Name, ide))
	}
	var keys []string
	for _, k := range cfg.Strings("primary_keys") {
		if k == "${primary_key}" { // SeaTunnel's placeholder: the input's key
			keys = append(keys, in.PrimaryKey...)
			continue
		}
		keys = append(keys, k)
	}
	if len(keys) == 0 {
		keys = in.PrimaryKey
	}
	for _, k := range keys {
		i := -1
		for j, f := range in.Fields {
			if strings.EqualFold(f.Name, k) {
				i = j
			}
		}
		if i < 0 {
			return nil, cfg.Errorf("primary_keys", "%q is not a field of %s", k, in.TableID)
		}
		t.Key, t.KeyIdx = append(t.Key, t.Columns[i]), append(t.KeyIdx, i)
	}
	d := dialectSQL{name: conn.dialect()}
	if t.Create, err = createTableSQL(d, t, in, cfg.Bool("create_index")); err != nil {
		if cfg.String("schema_save_mode") == "IGNORE" || cfg.String("schema_save_mode") == "ERROR_WHEN_SCHEMA_NOT_EXIST" {
			t.Create = "" // the table is not created: the types need not map
		} else {
			return nil, cfg.Errorf("schema_save_mode", "table %s: %v", path, err)
		}
	}
	for _, f := range in.Fields {
		if _, err := argOf(conn.dialect(), f.Type); err != nil {
			return nil, cfg.Errorf("plugin_input", "table %s field %q: %v", in.TableID, f.Name, err)
		}
	}
	return t, nil
}

// catalogNames applies SeaTunnel's catalog options to a sink's table
// option (JdbcSinkFactory): tablePrefix and tableSuffix around its table
// name and, for PostgreSQL, schema in place of its schema (MySQL has
// none).
func catalogNames(cfg *config.PluginConfig, table string, postgres bool) string {
	prefix, suffix, schema := cfg.String("tablePrefix"), cfg.String("tableSuffix"), cfg.String("schema")
	if !postgres {
		schema = ""
	}
	if prefix == "" && suffix == "" && schema == "" {
		return table
	}
	parts := splitIdent(table)
	last := len(parts) - 1
	parts[last] = prefix + parts[last] + suffix
	if schema != "" {
		if last == 0 {
			parts = []string{schema, parts[0]}
		} else {
			parts[last-1] = schema
		}
	}
	for i, p := range parts {
		if strings.Contains(p, ".") {
			parts[i] = `"` + p + `"`
		}
	}
	return strings.Join(parts, ".")
}

// caseOf applies field_ide to a name.
func caseOf(name, ide string) string {
	switch ide {
	case "UPPERCASE":
		return strings.ToUpper(name)
	case "LOWERCASE":
		return strings.ToLower(name)
	}
	return name
}

// createTableSQL is the CREATE TABLE of a target from its input's
// catalog table, the key as primary key (with create_index).
func createTableSQL(d dialectSQL, t *sinkTable, in *row.Schema, index bool) (string, error) {
	var cols []string
	isKey := map[int]bool{}
	for _, i := range t.KeyIdx {
		isKey[i] = true
	}
	for i, f := range in.Fields {
		var typ string
		var err error
		if d.name == dialectPostgres {
			typ, err = postgresDDL(f.Type)
		} else {
			typ, err = mysqlDDL(f.Type, isKey[i])
		}
		if err != nil {
			return "", fmt.Errorf("field %q: %w", f.Name, err)
		}
		col := d.quote(t.Columns[i]) + " " + typ
		if !f.Nullable || isKey[i] {
			col += " NOT NULL"
		}
		cols = append(cols, col)
	}
	if index && len(t.Key) > 0 {
		var ks []string
		for _, k := range t.Key {
			ks = append(ks, d.quote(k))
		}
		cols = append(cols, "PRIMARY KEY ("+strings.Join(ks, ", ")+")")
	}
	return "CREATE TABLE " + d.table(t.Target) + " (\n  " + strings.Join(cols, ",\n  ") + "\n)", nil
}

func (r *sinkResolved) encode() ([]byte, error) { return json.Marshal(r) }

func decodeSinkResolved(cfg *config.PluginConfig, b []byte, inputs []*row.Schema) (*sinkResolved, error) {
	var r sinkResolved
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("Jdbc resolved sink: %w", err)
	}
	if err := withConn(cfg, &r.Conn); err != nil {
		return nil, err
	}
	if len(r.Tables) > 0 && len(r.Tables) != len(inputs) {
		return nil, fmt.Errorf("Jdbc resolved sink: %d tables for %d inputs", len(r.Tables), len(inputs))
	}
	r.inputs = inputs
	return &r, nil
}

// sink is a configured Jdbc sink.
type sink struct {
	r *sinkResolved
}
