package fake

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors/fake/literal"
	"github.com/stactor/stactor/row"
)

// DefaultTable is the table id of a schema without `table`: SeaTunnel's
// TablePath.DEFAULT.
const DefaultTable = "default.default.default"

// Fake modes, as SeaTunnel's FakeMode.
const (
	modeRange    = "RANGE"
	modeTemplate = "TEMPLATE"
)

// numeric describes one of the <type>.fake.mode families: its option
// prefix and the bounds SeaTunnel allows for <type>.min and <type>.max.
type numeric struct {
	name     string
	id       row.TypeID
	integral bool
	ihi      int64   // integral: min and max lie in [0, ihi]; max defaults to it
	fhi      float64 // floating: the same
}

var numerics = []numeric{
	{name: "tinyint", id: row.TypeTinyInt, integral: true, ihi: math.MaxInt8},
	{name: "smallint", id: row.TypeSmallInt, integral: true, ihi: math.MaxInt16},
	{name: "int", id: row.TypeInt, integral: true, ihi: math.MaxInt32},
	{name: "bigint", id: row.TypeBigInt, integral: true, ihi: math.MaxInt64},
	{name: "float", id: row.TypeFloat, fhi: math.MaxFloat32},
	{name: "double", id: row.TypeDouble, fhi: math.MaxFloat64},
}

// dateParts are the date.*.template and time.*.template options with the
// values each may hold.
var dateParts = []struct {
	key    string
	lo, hi int64
}{
	{"date.year.template", 1, 9999},
	{"date.month.template", 1, 12},
	{"date.day.template", 1, 31},
	{"time.hour.template", 0, 23},
	{"time.minute.template", 0, 59},
	{"time.second.template", 0, 59},
}

// options are FakeSource's options, with SeaTunnel's names and defaults.
// Every table of tables_configs takes the same options (except
// tables_configs itself).
var options = func() []config.Option {
	opts := []config.Option{
		{Key: "tables_configs", Type: config.TypeList, Doc: "several tables, each a block of FakeSource options with its own schema"},
		config.SchemaOption,
		{Key: "table-names", Type: config.TypeStrings, Doc: "several tables with the same schema and options, one per name (db.table)"},
		{Key: "rows", Type: config.TypeList, Doc: "fixed rows { kind = INSERT, fields = [ ... ] } emitted by every split instead of random data"},
		{Key: "row.num", Type: config.TypeInt, Default: int64(5), Doc: "rows generated per parallel subtask"},
		{Key: "split.num", Type: config.TypeInt, Default: int64(1), Doc: "splits per parallel subtask"},
		{Key: "split.read-interval", Type: config.TypeInt, Default: int64(1), Doc: "ms between the reads of two splits in a reader"},
		{Key: "map.size", Type: config.TypeInt, Default: int64(5)},
		{Key: "array.size", Type: config.TypeInt, Default: int64(5)},
		{Key: "bytes.length", Type: config.TypeInt, Default: int64(5)},
		{Key: "string.length", Type: config.TypeInt, Default: int64(5)},
		{Key: "string.fake.mode", Type: config.TypeEnum, Enum: []string{modeRange, modeTemplate}, Default: modeRange},
		{Key: "string.template", Type: config.TypeStrings},
	}
	for _, n := range numerics {
		typ := config.TypeFloat
		var lo, hi any = float64(0), n.fhi
		if n.integral {
			typ = config.TypeInt
			lo, hi = int64(0), n.ihi
		}
		opts = append(opts,
			config.Option{Key: n.name + ".fake.mode", Type: config.TypeEnum, Enum: []string{modeRange, modeTemplate}, Default: modeRange},
			config.Option{Key: n.name + ".min", Type: typ, Default: lo},
			config.Option{Key: n.name + ".max", Type: typ, Default: hi},
			config.Option{Key: n.name + ".template", Type: config.TypeList},
		)
	}
	for _, p := range dateParts {
		opts = append(opts, config.Option{Key: p.key, Type: config.TypeList})
	}
	return opts
}()

// intGen is how a tinyint..bigint field is generated: from template when
// it is set, else uniformly in [min, max) as SeaTunnel's RandomUtils.
type intGen struct {
	min, max int64
	template []int64
}

// floatGen is the same for float and double.
type floatGen struct {
	min, max float64
	template []float64
}

// tableConfig is one table's options, checked.
type tableConfig struct {
	schema       *row.Schema
	custom       *row.Batch // the fixed rows, nil when data is generated
	rowNum       int
	splitNum     int
	readInterval time.Duration
	mapSize      int
	arraySize    int
	bytesLength  int
	stringLength int

	stringTemplate []string
	ints           map[row.TypeID]*intGen
	floats         map[row.TypeID]*floatGen
	// year, month, day, hour, minute, second templates; nil: random
	dateTemplates [6][]int64
}

// optReader reads the options of one table from body (the plugin block, or
// an entry of tables_configs whose keys are reported under prefix).
// It keeps the first error.
type optReader struct {
	cfg    *config.PluginConfig
	body   *hocon.Value
	prefix string
	err    error
}

func (r *optReader) get(key string) *hocon.Value {
	if v := r.body.Get(key); v != nil {
		return v
	}
	return r.body.Lookup(key)
}

func (r *optReader) fail(v *hocon.Value, key, format string, args ...any) {
	if r.err == nil {
		if v == nil {
			v = r.body
		}
		r.err = r.cfg.ErrorAt(v, r.prefix+key, format, args...)
	}
}

func (r *optReader) int(key string, def, min, max int64) int64 {
	v := r.get(key)
	if v == nil {
		return def
	}
	n, ok := v.Int()
	if !ok || v.Kind == hocon.Object || v.Kind == hocon.Array {
		r.fail(v, key, "expected an integer, got %s", v.String())
		return def
	}
	if n < min || n > max {
		r.fail(v, key, "must be between %d and %d, got %d", min, max, n)
		return def
	}
	return n
}

func (r *optReader) float(key string, def, min, max float64) float64 {
	v := r.get(key)
	if v == nil {
		return def
	}
	f, ok := v.Float()
	if !ok || v.Kind == hocon.Object || v.Kind == hocon.Array {
		r.fail(v, key, "expected a number, got %s", v.String())
		return def
	}
	if f < min || f > max {
		r.fail(v, key, "must be between %v and %v, got %v", min, max, f)
		return def
	}
	return f
}

func (r *optReader) mode(key string) string {
	v := r.get(key)
	if v == nil {
		return modeRange
	}
	s := strings.ToUpper(strings.TrimSpace(v.String()))
	if s != modeRange && s != modeTemplate || v.Kind == hocon.Object || v.Kind == hocon.Array {
		r.fail(v, key, "expected one of RANGE, TEMPLATE, got %s", v.String())
		return modeRange
	}
	return s
}

// list reads a template list; one scalar counts as a list of one.
func (r *optReader) list(key string) []*hocon.Value {
	v := r.get(key)
	switch {
	case v == nil:
		return nil
	case v.Kind == hocon.Array:
		return v.Items
	case v.Kind == hocon.Object:
		r.fail(v, key, "expected a list [ ... ], got an object")
		return nil
	}
	return []*hocon.Value{v}
}

func (r *optReader) intList(key string, min, max int64) []int64 {
	items := r.list(key)
	if items == nil {
		return nil
	}
	out := make([]int64, 0, len(items))
	for i, it := range items {
		n, ok := it.Int()
		if !ok || it.Kind == hocon.Object || it.Kind == hocon.Array {
			r.fail(it, key, "item %d: expected an integer, got %s", i+1, it.String())
			return nil
		}
		if n < min || n > max {
			r.fail(it, key, "item %d: must be between %d and %d, got %d", i+1, min, max, n)
			return nil
		}
		out = append(out, n)
	}
	return out
}

func (r *optReader) floatList(key string, max float64) []float64 {
	items := r.list(key)
	if items == nil {
		return nil
	}
	out := make([]float64, 0, len(items))
	for i, it := range items {
		f, ok := it.Float()
		if !ok || it.Kind == hocon.Object || it.Kind == hocon.Array {
			r.fail(it, key, "item %d: expected a number, got %s", i+1, it.String())
			return nil
		}
		if math.Abs(f) > max {
			r.fail(it, key, "item %d: out of range, got %v", i+1, f)
			return nil
		}
		out = append(out, f)
	}
	return out
}

// parseTables reads the plugin's tables: tables_configs, or the plugin
// block itself as one table.
func parseTables(cfg *config.PluginConfig) ([]*tableConfig, error) {
	if tc := cfg.Raw("tables_configs"); tc != nil {
		if cfg.Raw("schema") != nil {
			return nil, cfg.Errorf("tables_configs", "set either tables_configs or schema, not both")
		}
		if len(tc.Items) == 0 {
			return nil, cfg.Errorf("tables_configs", "must list at least one table")
		}
		var tables []*tableConfig
		seen := map[string]bool{}
		for i, entry := range tc.Items {
			prefix := fmt.Sprintf("tables_configs[%d].", i)
			if entry.Kind != hocon.Object {
				return nil, cfg.ErrorAt(entry, "tables_configs", "item %d: expected a block of options { schema = ..., row.num = ... }", i+1)
			}
			if entry.Get("tables_configs") != nil {
				return nil, cfg.ErrorAt(entry.Get("tables_configs"), prefix+"tables_configs", "nested tables_configs is not supported")
			}
			ts, err := parseNamedTables(&optReader{cfg: cfg, body: entry, prefix: prefix})
			if err != nil {
				return nil, err
			}
			for _, t := range ts {
				if seen[t.schema.TableID] {
					return nil, cfg.ErrorAt(entry, prefix+"schema", "table %q appears twice: table names must be unique", t.schema.TableID)
				}
				seen[t.schema.TableID] = true
			}
			tables = append(tables, ts...)
		}
		return tables, nil
	}
	if cfg.Raw("schema") == nil {
		return nil, cfg.Errorf("schema", "missing; FakeSource needs a schema { fields { ... } } or tables_configs [ ... ]")
	}
	return parseNamedTables(&optReader{cfg: cfg, body: cfg.Body})
}

// parseNamedTables reads one block of table options. With table-names it
// is one table per name, each with the block's schema and options (and so
// the same kind of rows, row.num each), as SeaTunnel's FakeSource made one
// table per TableIdentifier of table-names (FakeConfig.tableIdentifiers;
// later SeaTunnel versions only have tables_configs).
func parseNamedTables(r *optReader) ([]*tableConfig, error) {
	t, err := parseTable(r)
	if err != nil {
		return nil, err
	}
	nv := r.get("table-names")
	if nv == nil || nv.Kind == hocon.Null {
		return []*tableConfig{t}, nil
	}
	items := []*hocon.Value{nv}
	if nv.Kind == hocon.Array {
		items = nv.Items
	}
	if len(items) == 0 {
		return nil, r.cfg.ErrorAt(nv, r.prefix+"table-names", "must list at least one table")
	}
	var out []*tableConfig
	seen := map[string]bool{}
	for i, it := range items {
		name := strings.TrimSpace(it.String())
		if it.Kind == hocon.Object || it.Kind == hocon.Array || name == "" {
			return nil, r.cfg.ErrorAt(it, r.prefix+"table-names", "item %d: expected a table name such as \"db.table\"", i+1)
		}
		if seen[name] {
			return nil, r.cfg.ErrorAt(it, r.prefix+"table-names", "table %q appears twice: table names must be unique", name)
		}
		seen[name] = true
		c := *t
		c.schema = t.schema.WithTableID(name)
		if t.custom != nil {
			c.custom = t.custom.WithColumns(c.schema, t.custom.Cols)
		}
		out = append(out, &c)
	}
	return out, nil
}

func parseTable(r *optReader) (*tableConfig, error) {
	sv := r.get("schema")
	if sv == nil {
		r.fail(nil, "schema", "missing; each table needs a schema { fields { ... } }")
		return nil, r.err
	}
	schema, err := config.ParseSchema(sv, DefaultTable, r.cfg.Where)
	if err != nil {
		if ce, ok := err.(*config.Error); ok && r.prefix != "" {
			ce.Key = r.prefix + ce.Key
		}
		return nil, err
	}
	t := &tableConfig{
		schema: schema,
		rowNum: int(r.int("row.num", 5, 0, math.MaxInt32)),
		// Bounds keep one job from exhausting a node (DESIGN §11): splits
		// are listed up front, and a batch holds a few thousand rows.
		splitNum:     int(r.int("split.num", 1, 1, 1<<16)),
		readInterval: time.Duration(r.int("split.read-interval", 1, 0, math.MaxInt32)) * time.Millisecond,
		mapSize:      int(r.int("map.size", 5, 0, 1<<12)),
		arraySize:    int(r.int("array.size", 5, 0, 1<<12)),
		bytesLength:  int(r.int("bytes.length", 5, 0, 1<<16)),
		stringLength: int(r.int("string.length", 5, 0, 1<<16)),
		ints:         map[row.TypeID]*intGen{},
		floats:       map[row.TypeID]*floatGen{},
	}

	strMode := r.mode("string.fake.mode")
	for i, it := range r.list("string.template") {
		if it.Kind == hocon.Object || it.Kind == hocon.Array {
			r.fail(it, "string.template", "item %d: expected a string", i+1)
			break
		}
		t.stringTemplate = append(t.stringTemplate, it.String())
	}
	if strMode == modeTemplate && len(t.stringTemplate) == 0 {
		r.fail(r.get("string.fake.mode"), "string.template", "string.fake.mode is TEMPLATE but string.template is not set")
	}

	for _, n := range numerics {
		mode := r.mode(n.name + ".fake.mode")
		var hasTemplate bool
		if n.integral {
			hi := n.ihi
			g := &intGen{
				min:      r.int(n.name+".min", 0, 0, hi),
				max:      r.int(n.name+".max", hi, 0, hi),
				template: r.intList(n.name+".template", -hi-1, hi),
			}
			if g.min > g.max {
				r.fail(r.get(n.name+".min"), n.name+".min", "%s.min (%d) is greater than %s.max (%d)", n.name, g.min, n.name, g.max)
			}
			hasTemplate = len(g.template) > 0
			t.ints[n.id] = g
		} else {
			g := &floatGen{
				min:      r.float(n.name+".min", 0, 0, n.fhi),
				max:      r.float(n.name+".max", n.fhi, 0, n.fhi),
				template: r.floatList(n.name+".template", n.fhi),
			}
			if g.min > g.max {
				r.fail(r.get(n.name+".min"), n.name+".min", "%s.min (%v) is greater than %s.max (%v)", n.name, g.min, n.name, g.max)
			}
			hasTemplate = len(g.template) > 0
			t.floats[n.id] = g
		}
		if mode == modeTemplate && !hasTemplate {
			r.fail(r.get(n.name+".fake.mode"), n.name+".template", "%s.fake.mode is TEMPLATE but %s.template is not set", n.name, n.name)
		}
	}
	for i, p := range dateParts {
		t.dateTemplates[i] = r.intList(p.key, p.lo, p.hi)
	}
	if r.err != nil {
		return nil, r.err
	}
	if rows := r.get("rows"); rows != nil {
		custom, err := parseRows(r, rows, schema)
		if err != nil {
			return nil, err
		}
		t.custom = custom
	}
	return t, nil
}

// parseRows reads the fixed rows: a list of { kind = INSERT, fields = [...] },
// each field converted to its column's type as SeaTunnel's JSON converter
// does (see package literal).
func parseRows(r *optReader, rows *hocon.Value, schema *row.Schema) (*row.Batch, error) {
	key := r.prefix + "rows"
	if rows.Kind != hocon.Array {
		return nil, r.cfg.ErrorAt(rows, key, "expected a list of { kind = INSERT, fields = [ ... ] }")
	}
	b := row.NewBuilder(schema, len(rows.Items))
	for i, it := range rows.Items {
		if it.Kind != hocon.Object {
			return nil, r.cfg.ErrorAt(it, key, "row %d: expected { kind = INSERT, fields = [ ... ] }", i+1)
		}
		kind := row.Insert
		if kv := it.Get("kind"); kv != nil {
			k, err := row.ParseKind(strings.TrimSpace(kv.String()))
			if err != nil {
				return nil, r.cfg.ErrorAt(kv, key, "row %d: %v", i+1, err)
			}
			kind = k
		} else {
			return nil, r.cfg.ErrorAt(it, key, "row %d: missing kind (INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE)", i+1)
		}
		fv := it.Get("fields")
		if fv == nil || fv.Kind != hocon.Array {
			return nil, r.cfg.ErrorAt(it, key, "row %d: expected fields = [ ... ] with one value per field", i+1)
		}
		if len(fv.Items) != schema.Len() {
			return nil, r.cfg.ErrorAt(fv, key, "row %d: has %d fields, table %s has %d (%s)", i+1, len(fv.Items), schema.TableID, schema.Len(), strings.Join(schema.Names(), ", "))
		}
		vals := make([]any, schema.Len())
		for j, f := range schema.Fields {
			v, err := literal.Convert(f.Type, fv.Items[j])
			if err != nil {
				at := fv.Items[j]
				if le, ok := err.(*literal.Error); ok && le.At != nil {
					at = le.At
				}
				return nil, r.cfg.ErrorAt(at, key, "row %d, field %q (%s): %v", i+1, f.Name, f.Type, err)
			}
			vals[j] = v
		}
		if err := b.AppendRow(kind, vals); err != nil {
			return nil, r.cfg.ErrorAt(fv, key, "row %d: %v", i+1, err)
		}
	}
	return b.Build(), nil
}
