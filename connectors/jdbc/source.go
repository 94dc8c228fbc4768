package jdbc

import (
	"context"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// sourceTable is one table (or query) a source reads, as resolved: its
// columns, keys and the split key chosen.
type sourceTable struct {
	ID         string     `json:"id"`
	Path       *tablePath `json:"path,omitempty"`
	Query      string     `json:"query"` // what is read: the user's query, or SELECT * FROM the table
	Columns    []column   `json:"columns"`
	PrimaryKey []string   `json:"primary_key,omitempty"`
	UniqueKeys [][]string `json:"unique_keys,omitempty"`
	// Key is the split key ("" for one split, read in Order with a row
	// count as position); KeyUnique says a key value names one row.
	Key         string   `json:"key,omitempty"`
	KeyIndex    int      `json:"key_index"`
	KeyUnique   bool     `json:"key_unique,omitempty"`
	KeyNullable bool     `json:"key_nullable,omitempty"`
	Order       []string `json:"order,omitempty"`

	schema *row.Schema
}

func (t *sourceTable) keyType() *row.Type { return t.Columns[t.KeyIndex].Type }

// sourceResolved is what Resolve finds and every node gets: the checked
// options and the tables.
type sourceResolved struct {
	Conn         connOptions    `json:"conn"`
	Tables       []*sourceTable `json:"tables"`
	Where        string         `json:"where,omitempty"`
	FetchSize    int            `json:"fetch_size"`
	SplitSize    int64          `json:"split_size"`
	FactorLow    float64        `json:"factor_low"`
	FactorHigh   float64        `json:"factor_high"`
	PartitionNum int64          `json:"partition_num,omitempty"`
	LowerBound   string         `json:"lower_bound,omitempty"`
	UpperBound   string         `json:"upper_bound,omitempty"`
	SelectCount  bool           `json:"select_count,omitempty"`
	Zero         zeroDate       `json:"zero,omitempty"`
}

// tableSpec is one entry of table_list (or the single table_path/query).
type tableSpec struct {
	path, query string
	key         string // "table_path" or "query", for errors
}

// resolveSource checks the options, connects, and describes the tables.
func resolveSource(ctx context.Context, cfg *config.PluginConfig) (*sourceResolved, error) {
	conn, err := connFrom(cfg)
	if err != nil {
		return nil, err
	}
	r := &sourceResolved{Conn: conn, FetchSize: int(cfg.Int("fetch_size")), SplitSize: cfg.Int("split.size"),
		FactorLow: cfg.Float("split.even-distribution.factor.lower-bound"), FactorHigh: cfg.Float("split.even-distribution.factor.upper-bound"),
		PartitionNum: cfg.Int("partition_num"), LowerBound: cfg.String("partition_lower_bound"), UpperBound: cfg.String("partition_upper_bound"),
		SelectCount: cfg.Bool("use_select_count")}
	if v, ok := conn.param("zeroDateTimeBehavior"); ok {
		r.Zero = zeroDate(v)
	}
	if r.SplitSize <= 0 {
		return nil, cfg.Errorf("split.size", "must be positive")
	}
	if r.FetchSize < 0 {
		return nil, cfg.Errorf("fetch_size", "must not be negative")
	}
	if cfg.Has("partition_num") && r.PartitionNum <= 0 {
		return nil, cfg.Errorf("partition_num", "must be positive")
	}
	if w := strings.TrimSpace(cfg.String("where_condition")); w != "" {
		rest, ok := cutPrefixFold(w, "where")
		if !ok {
			return nil, cfg.Errorf("where_condition", "must start with where, as in: where id > 100")
		}
		r.Where = strings.TrimSpace(rest)
	}
	var specs []tableSpec
	switch {
	case cfg.Has("table_list"):
		if cfg.Has("table_path") {
			return nil, cfg.Errorf("table_list", "set table_list or table_path, not both")
		}
		for i, it := range cfg.Raw("table_list").Items {
			p, q := it.Get("table_path"), it.Get("query")
			if p == nil {
				return nil, cfg.ErrorAt(it, "table_list", "item %d has no table_path", i+1)
			}
			s := tableSpec{path: p.String(), key: fmt.Sprintf("table_list[%d]", i)}
			if q != nil {
				s.query = q.String()
			}
			specs = append(specs, s)
		}
		if len(specs) == 0 {
			return nil, cfg.Errorf("table_list", "is empty")
		}
	case cfg.Has("table_path"):
		specs = []tableSpec{{path: cfg.String("table_path"), query: cfg.String("query"), key: "table_path"}}
	case cfg.Has("query"):
		specs = []tableSpec{{query: cfg.String("query"), key: "query"}}
	default:
		return nil, cfg.Errorf("query", "set query, table_path or table_list")
	}
	if cfg.Has("partition_column") && len(specs) > 1 {
		return nil, cfg.Errorf("partition_column", "applies to one table; table_list splits each table by its key")
	}
	cctx, cancel := conn.checkContext(ctx)
	defer cancel()
	var cat catalog
	switch conn.dialect() {
	case dialectPostgres:
		pc, err := conn.connectPG(cctx)
		if err != nil {
			return nil, cfg.Errorf("url", "%v", err)
		}
		defer pc.Close(context.Background())
		cat = catalog{dialect: dialectPostgres,
			table: func(ctx context.Context, p tablePath) (*tableInfo, error) { return describePostgres(ctx, pc, p) },
			queryShape: func(ctx context.Context, name, query string, t *tableInfo) ([]column, error) {
				return describePostgresQuery(ctx, pc, name, query, t)
			}}
	default:
		db, err := conn.connectMySQL(cctx)
		if err != nil {
			return nil, cfg.Errorf("url", "%v", err)
		}
		defer db.Close()
		cat = catalog{dialect: dialectMySQL,
			table: func(ctx context.Context, p tablePath) (*tableInfo, error) { return describeMySQL(ctx, db, p) },
			queryShape: func(ctx context.Context, name, query string, t *tableInfo) ([]column, error) {
				return describeMySQLQuery(ctx, db, name, query, t)
			}}
	}
	for _, s := range specs {
		t, err := describeSource(ctx, cat, &conn, s)
		if err != nil {
			return nil, cfg.Errorf(s.key, "%v", err)
		}
		if err := chooseKey(t, cfg.String("partition_column")); err != nil {
			return nil, cfg.Errorf("partition_column", "%v", err)
		}
		r.Tables = append(r.Tables, t)
	}
	for _, k := range []string{"partition_lower_bound", "partition_upper_bound"} {
		if !cfg.Has(k) {
			continue
		}
		t := r.Tables[0]
		if t.Key == "" || !(t.keyType().IsInteger() || t.keyType().ID == row.TypeDecimal) {
			what := "has none (set partition_column)"
			if t.Key != "" {
				what = fmt.Sprintf("splits by %q, a %s", t.Key, t.keyType())
			}
			return nil, cfg.Errorf(k, "applies to an integer or decimal split key; %s %s", t.ID, what)
		}
		v := strings.TrimSpace(cfg.String(k))
		if _, ok := new(big.Int).SetString(v, 10); !ok {
			return nil, cfg.Errorf(k, "must be an integer, got %q", cfg.String(k))
		}
		if _, err := strconv.ParseInt(v, 10, 64); err != nil && t.keyType().IsInteger() {
			return nil, cfg.Errorf(k, "%s is out of range for the %s split key %q", v, t.keyType(), t.Key)
		}
	}
	r.LowerBound, r.UpperBound = strings.TrimSpace(r.LowerBound), strings.TrimSpace(r.UpperBound)
	return r, nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	rest := s[len(prefix):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\n' && rest[0] != '\t' && rest[0] != '(' {
		return s, false
	}
	return rest, true
}

// catalog is one dialect's catalog reads: a table's description, and the
// columns a query returns (over a table's, when it reads one).
type catalog struct {
	dialect    string
	table      func(ctx context.Context, p tablePath) (*tableInfo, error)
	queryShape func(ctx context.Context, name, query string, table *tableInfo) ([]column, error)
}

// describeSource is the source table s reads: from its table_path, its
// query, or both.
func describeSource(ctx context.Context, cat catalog, co *connOptions, s tableSpec) (*sourceTable, error) {
	d := dialectSQL{name: cat.dialect}
	t := &sourceTable{}
	var info *tableInfo
	if s.path != "" {
		p, err := parseTablePath(s.path, cat.dialect, co.url.database)
		if err != nil {
			return nil, err
		}
		if info, err = cat.table(ctx, p); err != nil {
			return nil, err
		}
		t.Path, t.ID, t.PrimaryKey, t.UniqueKeys = &p, p.String(), info.PrimaryKey, info.UniqueKeys
	}
	if s.query == "" {
		t.Query, t.Columns = "SELECT * FROM "+d.table(info.Path), info.Columns
		return t, nil
	}
	t.Query = strings.TrimRight(strings.TrimSpace(s.query), ";")
	if t.ID == "" {
		t.ID = co.url.database + ".default"
	}
	cols, err := cat.queryShape(ctx, t.ID, t.Query, info)
	if err != nil {
		return nil, err
	}
	t.Columns = cols
	return t, nil
}

// chooseKey picks the split key as SeaTunnel does: partition_column, else
// the first column of the primary key, then of a unique key, that has a
// splittable type; else none (one split). It also fixes the order the
// rows are read in: the key, then the rest of the primary key, or every
// column that sorts, so that a position names one place.
func chooseKey(t *sourceTable, partition string) error {
	index := func(name string) int {
		for i, c := range t.Columns {
			if c.Name == name {
				return i
			}
		}
		return -1
	}
	t.Key = ""
	if partition != "" {
		i := index(partition)
		if i < 0 {
			return fmt.Errorf("%q is not a column of %s", partition, t.ID)
		}
		if !splittable(t.Columns[i].Type) {
			return fmt.Errorf("column %q of %s is %s; a split key must be a number, a string or a date", partition, t.ID, t.Columns[i].Type)
		}
		t.Key, t.KeyIndex = partition, i
	} else {
		keys := append([][]string{t.PrimaryKey}, t.UniqueKeys...)
	find:
		for _, k := range keys {
			for _, c := range k {
				if i := index(c); i >= 0 && splittable(t.Columns[i].Type) {
					t.Key, t.KeyIndex = c, i
					break find
				}
			}
		}
	}
	if t.Key != "" {
		t.KeyNullable = t.Columns[t.KeyIndex].Nullable
		for _, k := range append([][]string{t.PrimaryKey}, t.UniqueKeys...) {
			if len(k) == 1 && k[0] == t.Key {
				t.KeyUnique = true
			}
		}
	}
	t.Order = nil
	if t.Key != "" {
		t.Order = append(t.Order, t.Key)
		if t.KeyUnique {
			return nil
		}
	}
	if len(t.PrimaryKey) > 0 && allIn(t.PrimaryKey, index) {
		for _, c := range t.PrimaryKey {
			if c != t.Key {
				t.Order = append(t.Order, c)
			}
		}
		return nil
	}
	for _, c := range t.Columns {
		if c.Name != t.Key && sortable(c) {
			t.Order = append(t.Order, c.Name)
		}
	}
	return nil
}

func allIn(names []string, index func(string) int) bool {
	for _, n := range names {
		if index(n) < 0 {
			return false
		}
	}
	return true
}

// sortable tells whether ORDER BY takes the column (PostgreSQL's json and
// xml have no order).
func sortable(c column) bool {
	switch c.DBType {
	case "json", "xml", "json[]", "xml[]":
		return false
	}
	return c.Type.ID != row.TypeMap && c.Type.ID != row.TypeRow
}

// decodeResolved reads what Resolve encoded and rebuilds the schemas.
func decodeSourceResolved(cfg *config.PluginConfig, b []byte) (*sourceResolved, error) {
	var r sourceResolved
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("Jdbc resolved source: %w", err)
	}
	if err := withConn(cfg, &r.Conn); err != nil {
		return nil, err
	}
	for _, t := range r.Tables {
		for i := range t.Columns {
			ty, err := row.ParseType(t.Columns[i].TypeText)
			if err != nil {
				return nil, fmt.Errorf("Jdbc resolved source: %w", err)
			}
			t.Columns[i].Type = ty
		}
		if err := t.buildSchema(); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

func (r *sourceResolved) encode() ([]byte, error) {
	for _, t := range r.Tables {
		for i := range t.Columns {
			t.Columns[i].TypeText = t.Columns[i].Type.String()
		}
	}
	return json.Marshal(r)
}

func (t *sourceTable) buildSchema() error {
	s, err := schemaOf(t.ID, t.Columns, t.PrimaryKey, t.UniqueKeys)
	if err != nil {
		return err
	}
	t.schema = s
	return nil
}

// source is a configured Jdbc source; it is bounded, as SeaTunnel's.
type source struct {
	r *sourceResolved
}

func (s *source) Tables() []*row.Schema {
	out := make([]*row.Schema, len(s.r.Tables))
	for i, t := range s.r.Tables {
		out[i] = t.schema
	}
	return out
}

func (s *source) Boundedness() connectors.Boundedness { return connectors.Bounded }
