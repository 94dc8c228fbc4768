package assert

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func newSink(t *testing.T, body string, inputs ...*row.Schema) (*sink, error) {
	t.Helper()
	root, err := hocon.Parse([]byte(body), hocon.Options{File: "job.conf"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Validate("job.conf", "sink Assert", "Assert", root.Pos, root, Factory.Options, config.CommonPluginOptions)
	if err != nil {
		return nil, err
	}
	s, err := Factory.Create(cfg, inputs, nil, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		return nil, err
	}
	return s.(*sink), nil
}

func mustSink(t *testing.T, body string, inputs ...*row.Schema) *sink {
	t.Helper()
	s, err := newSink(t, body, inputs...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var people = row.MustSchema("fake",
	row.Field{Name: "id", Type: row.BigInt},
	row.Field{Name: "name", Type: row.String, Nullable: true},
	row.Field{Name: "age", Type: row.Int, Nullable: true},
)

func batch(t *testing.T, s *row.Schema, rows ...[]any) *row.Batch {
	b := row.NewBuilder(s, len(rows))
	for _, r := range rows {
		if err := b.AppendRow(row.Insert, r); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

func TestFieldRules(t *testing.T) {
	ok := []any{int64(1), "Alice", int64(30)}
	cases := []struct {
		name, rule string
		row        []any
		fail       string // "" when the row passes
	}{
		{"not null", `field_name = name, field_value = [{ rule_type = NOT_NULL }]`, ok, ""},
		{"not null fails", `field_name = name, field_value = [{ rule_type = NOT_NULL }]`, []any{int64(1), nil, int64(3)},
			`assert rule field "name" NOT_NULL failed at row 1 (subtask 3): value null; row: [1, null, 3]`},
		{"null", `field_name = name, field_value = [{ rule_type = NULL }]`, []any{int64(1), nil, int64(3)}, ""},
		{"null fails", `field_name = name, field_value = [{ rule_type = NULL }]`, ok, `"name" NULL failed`},
		{"min", `field_name = age, field_value = [{ rule_type = MIN, rule_value = 30 }]`, ok, ""},
		{"min fails", `field_name = age, field_value = [{ rule_type = MIN, rule_value = 31 }]`, ok, `"age" MIN 31 failed`},
		{"max", `field_name = age, field_value = [{ rule_type = MAX, rule_value = 100 }]`, ok, ""},
		{"max fails", `field_name = age, field_value = [{ rule_type = MAX, rule_value = 100 }]`, []any{int64(7), "Bob", int64(120)},
			`assert rule field "age" MAX 100 failed at row 1 (subtask 3): value 120; row: [7, Bob, 120]`},
		{"max on null fails", `field_name = age, field_value = [{ rule_type = MAX, rule_value = 100 }]`, []any{int64(7), "Bob", nil}, `MAX 100 failed`},
		{"max on a string fails", `field_name = name, field_value = [{ rule_type = MAX, rule_value = 100 }]`, ok, `"name" MAX 100 failed`},
		{"min length", `field_name = name, field_value = [{ rule_type = MIN_LENGTH, rule_value = 5 }]`, ok, ""},
		{"min length fails", `field_name = name, field_value = [{ rule_type = MIN_LENGTH, rule_value = 6 }]`, ok, `MIN_LENGTH 6 failed`},
		{"max length counts UTF-16", `field_name = name, field_value = [{ rule_type = MAX_LENGTH, rule_value = 2 }]`, []any{int64(1), "日本", int64(1)}, ""},
		{"max length fails", `field_name = name, field_value = [{ rule_type = MAX_LENGTH, rule_value = 4 }]`, ok, `MAX_LENGTH 4 failed`},
		{"length of a number", `field_name = age, field_value = [{ rule_type = MAX_LENGTH, rule_value = 1 }]`, ok, `MAX_LENGTH 1 failed`},
		{"equals", `field_name = name, field_value = [{ rule_type = NOT_NULL, equals_to = "Alice" }]`, ok, ""},
		{"equals fails", `field_name = name, field_value = [{ equals_to = "Bob" }]`, ok, `"name" equals_to "Bob" failed at row 1 (subtask 3): value Alice`},
		{"equals skips null", `field_name = name, field_value = [{ equals_to = "Bob" }]`, []any{int64(1), nil, int64(3)}, ""},
		{"equals number", `field_name = age, field_value = [{ equals_to = 30 }]`, ok, ""},
		{"rules in order", `field_name = age, field_value = [{ rule_type = MIN, rule_value = 1 }, { rule_type = MAX, rule_value = 10 }]`, ok, `MAX 10 failed`},
		{"type", `field_name = age, field_type = int, field_value = [{ rule_type = NOT_NULL }]`, ok, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSink(t, "rules { field_rules = [{ "+c.rule+" }] }", people)
			w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 3}, nil)
			err := w.Write(batch(t, people, c.row))
			switch {
			case c.fail == "" && err != nil:
				t.Fatalf("want a pass, got %v", err)
			case c.fail != "" && (err == nil || !strings.Contains(err.Error(), c.fail)):
				t.Fatalf("want a failure containing %q, got %v", c.fail, err)
			}
			var f *Failure
			if err != nil && !errors.As(err, &f) {
				t.Fatalf("failure is not a *Failure: %T", err)
			}
		})
	}
}

func TestRowPositionInMessage(t *testing.T) {
	s := mustSink(t, `rules { field_rules = [{ field_name = age, field_value = [{ rule_type = MAX, rule_value = 100 }] }] }`, people)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	var rows [][]any
	for i := 1; i <= 5; i++ {
		rows = append(rows, []any{int64(i), "x", int64(i)})
	}
	if err := w.Write(batch(t, people, rows...)); err != nil {
		t.Fatal(err)
	}
	err := w.Write(batch(t, people, []any{int64(6), "Ann", int64(1)}, []any{int64(7), "Bob", int64(120)}))
	want := `assert rule field "age" MAX 100 failed at row 7 (subtask 0): value 120; row: [7, Bob, 120]`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestEqualsToEveryType follows the Complex example of SeaTunnel's Assert
// documentation: equals_to written as FakeSource writes its rows.
func TestEqualsToEveryType(t *testing.T) {
	schema := row.MustSchema("fake",
		row.Field{Name: "c_decimal", Type: row.DecimalOf(30, 8)},
		row.Field{Name: "c_date", Type: row.Date},
		row.Field{Name: "c_timestamp", Type: row.Timestamp},
		row.Field{Name: "c_time", Type: row.Time},
		row.Field{Name: "c_bytes", Type: row.Bytes},
		row.Field{Name: "c_array", Type: row.ArrayOf(row.Int)},
		row.Field{Name: "c_map_nest", Type: row.MapOf(row.String, row.RowOf(row.Field{Name: "c_int", Type: row.Int}, row.Field{Name: "c_string", Type: row.String}))},
		row.Field{Name: "c_row", Type: row.RowOf(row.Field{Name: "c_null", Type: row.Null}, row.Field{Name: "c_float", Type: row.Float}, row.Field{Name: "c_map", Type: row.MapOf(row.String, row.String)})},
		row.Field{Name: "c_float", Type: row.Float},
	)
	rules := `rules { field_rules = [
  { field_name = c_decimal, field_type = "decimal(30, 8)", field_value = [{ rule_type = NOT_NULL, equals_to = 99999.99999999 }] }
  { field_name = c_date, field_type = date, field_value = [{ equals_to = "2012-12-21" }] }
  { field_name = c_timestamp, field_type = timestamp, field_value = [{ equals_to = "2012-12-21T12:34:56" }] }
  { field_name = c_time, field_type = time, field_value = [{ equals_to = "12:34:56" }] }
  { field_name = c_bytes, field_type = bytes, field_value = [{ equals_to = "bWlJWmo=" }] }
  { field_name = c_array, field_type = "array<int>", field_value = [{ equals_to = [0, 1, 2] }] }
  { field_name = c_map_nest, field_type = "map<string, {c_int = int, c_string = string}>", field_value = [{ equals_to = { k1 = [123, "BBB-BB"] } }] }
  { field_name = c_row, field_type = { c_null = "null", c_float = float, c_map = "map<string, string>" }, field_value = [{ equals_to = [null, 3.1, { k0 = v0 }] }] }
  { field_name = c_float, field_type = float, field_value = [{ equals_to = 3.1 }] }
] }`
	s := mustSink(t, rules, schema)
	good := []any{decimal.RequireFromString("99999.99999999"), "2012-12-21", "2012-12-21T12:34:56", "12:34:56", []byte("miIZj"),
		[]any{int64(0), int64(1), int64(2)},
		row.OrderedMap{{Key: "k1", Value: []any{int64(123), "BBB-BB"}}},
		[]any{nil, 3.1, row.OrderedMap{{Key: "k0", Value: "v0"}}}, 3.1}
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, schema, good)); err != nil {
		t.Fatalf("equal values fail: %v", err)
	}
	for j, bad := range []any{decimal.RequireFromString("99999.99999998"), "2012-12-22", "2012-12-21T12:34:57", "12:34:55", []byte("miIZk"),
		[]any{int64(0), int64(1)}, row.OrderedMap{{Key: "k1", Value: []any{int64(124), "BBB-BB"}}},
		[]any{nil, 3.1, row.OrderedMap{{Key: "k0", Value: "v1"}}}, 3.2} {
		r := append([]any(nil), good...)
		r[j] = bad
		err := w.Write(batch(t, schema, r))
		if err == nil || !strings.Contains(err.Error(), `"`+schema.Fields[j].Name+`" `) || !strings.Contains(err.Error(), "equals_to") {
			t.Errorf("field %s: want an equals_to failure, got %v", schema.Fields[j].Name, err)
		}
	}
}

func TestDecimalPrecision(t *testing.T) {
	schema := row.MustSchema("t", row.Field{Name: "d", Type: row.DecimalOf(38, 2)})
	s := mustSink(t, `rules { field_rules = [{ field_name = d, field_type = "decimal(10, 2)", field_value = [{ rule_type = NOT_NULL }] }] }`, schema)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, schema, []any{"99999999.90"})); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch(t, schema, []any{"999999999.90"})); err == nil || !strings.Contains(err.Error(), "field_type decimal(10, 2) failed") {
		t.Fatalf("11 digits in decimal(10, 2): %v", err)
	}
}

func TestPlanErrors(t *testing.T) {
	cases := []struct {
		name, body string
		line       int
		msg        string
	}{
		{"unknown rule", "rules {\n field_rules = [{ field_name = age,\n  field_value = [{ rule_type = MAXIMUM, rule_value = 3 }] }]\n}", 3, "unknown rule type MAXIMUM"},
		{"bad field type", "rules {\n field_rules = [{ field_name = age,\n  field_type = \"integr\" }]\n}", 3, "unknown type name"},
		{"empty", "rules {\n}", 1, "Assert rule config is empty"},
		{"lower-case rule type", "rules {\n field_rules = [{ field_name = age,\n  field_value = [{ rule_type = not_null }] }]\n}", 3, "unknown rule type not_null"},
		{"row rule without type", "rules {\n row_rules = [\n  { rule_value = 3 }]\n}", 3, "a row rule needs a rule_type"},
		{"no such field", "rules {\n field_rules = [{\n  field_name = agee }]\n}", 3, `field "agee" is not in table fake (fields: id, name, age)`},
		{"not null column of another type", "rules {\n field_rules = [{ field_name = id,\n  field_type = string }]\n}", 3, `field "id" of table fake is bigint NOT NULL, not string: every row would fail`},
		{"row rule without value", "rules {\n row_rules = [\n  { rule_type = MIN_ROW }]\n}", 3, "MIN_ROW needs a rule_value"},
		{"pk", "rules { catalog_table_rule {\n primary_key_rule = { primary_key_name = pk, primary_key_columns = [id] } } }", 2, "primaryKey is null"},
		{"columns", "rules { catalog_table_rule {\n column_rule = [{ name = id, type = bigint }, { name = name, type = string }, { name = age, type = bigint }] } }", 2, "columns: [id bigint, name string, age int] is not equal to [id bigint, name string, age bigint]"},
		{"no constraint keys", "rules { catalog_table_rule {\n constraint_key_rule = [{ constraint_key_name = uk, constraint_key_type = UNIQUE_KEY, constraint_key_columns = [{ constraint_key_column_name = name, constraint_key_sort_type = ASC }] }] } }", 2, "table fake: constraintKeys is null"},
		{"sort type required", "rules { catalog_table_rule { constraint_key_rule = [{ constraint_key_name = uk, constraint_key_type = UNIQUE_KEY,\n constraint_key_columns = [{ constraint_key_column_name = name }] }] } }", 2, "missing: expected a string"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := newSink(t, c.body, people)
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Fatalf("want a *config.Error, got %v", err)
			}
			if ce.Pos.Line != c.line || !strings.Contains(ce.Msg, c.msg) {
				t.Fatalf("got %q at line %d, want line %d with %q", ce.Error(), ce.Pos.Line, c.line, c.msg)
			}
		})
	}
}

func TestCatalogRulePasses(t *testing.T) {
	s := people.WithTableID("db.people")
	s.PrimaryKey = []string{"id"}
	s.ConstraintKeys = []row.ConstraintKey{
		{Name: "uk", Type: "UNIQUE_KEY", Columns: []row.ConstraintColumn{{Name: "name", Sort: "ASC"}}},
		{Name: "ix", Type: "INDEX_KEY", Columns: []row.ConstraintColumn{{Name: "age", Sort: "DESC"}, {Name: "id", Sort: "ASC"}}},
	}
	keys := `constraint_key_rule = [
    { constraint_key_name = ix, constraint_key_type = INDEX_KEY, constraint_key_columns = [
      { constraint_key_column_name = age, constraint_key_sort_type = DESC }, { constraint_key_column_name = id, constraint_key_sort_type = ASC } ] }
    { constraint_key_name = uk, constraint_key_type = UNIQUE_KEY, constraint_key_columns = [{ constraint_key_column_name = name, constraint_key_sort_type = ASC }] }
  ]`
	mustSink(t, `rules { catalog_table_rule { `+keys+` } }`, s)
	_, err := newSink(t, `rules { catalog_table_rule { `+strings.Replace(keys, "DESC", "ASC", 1)+` } }`, s)
	if err == nil || !strings.Contains(err.Error(), "constraintKeys: [") || !strings.Contains(err.Error(), "is not equal to") {
		t.Errorf("a different sort type passed: %v", err)
	}
	mustSink(t, `rules { catalog_table_rule {
  primary_key_rule = { primary_key_name = "primary key", primary_key_columns = ["id"] }
  column_rule = [{ name = age, type = int }, { name = "id", type = bigint }, { name = name, type = string, nullable = true }]
  table_identifier_rule = { catalog_name = fake, table = "db.people" }
} }`, s)
}

// commitAll runs one checkpoint through the writers and the committer.
func commitAll(t *testing.T, c connectors.AggregatedCommitter, id int64, final bool, ws ...connectors.Writer) error {
	t.Helper()
	var infos [][]byte
	for _, w := range ws {
		info, err := w.PrepareCommit(id)
		if err != nil {
			t.Fatal(err)
		}
		infos = append(infos, info)
	}
	agg, err := c.Combine(infos)
	if err != nil {
		t.Fatal(err)
	}
	return c.Commit(context.Background(), connectors.CommitContext{CheckpointID: id, Final: final}, [][]byte{agg})
}

func TestRowRules(t *testing.T) {
	rules := `rules { row_rules = [{ rule_type = MAX_ROW, rule_value = 10 }, { rule_type = MIN_ROW, rule_value = 5 }] }`
	s := mustSink(t, rules, people)
	c, _ := s.CreateAggregatedCommitter()
	w1, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 0}, nil)
	w2, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 1}, nil)
	three := batch(t, people, []any{int64(1), "a", int64(1)}, []any{int64(2), "b", int64(2)}, []any{int64(3), "c", int64(3)})
	w1.Write(three)
	if err := commitAll(t, c, 1, false, w1, w2); err != nil {
		t.Fatalf("3 rows, not final: %v", err)
	}
	// MIN_ROW is judged at the end only
	if err := commitAll(t, c, 2, true, w1, w2); err == nil || err.Error() != "assert rule MIN_ROW 5 failed: 3 rows" {
		t.Fatalf("3 rows at the end: %v", err)
	}
	w2.Write(three)
	if err := commitAll(t, c, 3, true, w1, w2); err != nil {
		t.Fatalf("6 rows at the end: %v", err)
	}
	// the same checkpoint committed again counts nothing twice
	for i := 0; i < 3; i++ {
		if err := commitAll(t, c, 3, true, w1, w2); err != nil {
			t.Fatalf("repeated commit of checkpoint 3: %v", err)
		}
	}
	// an older checkpoint arriving late changes nothing
	if err := c.Commit(context.Background(), connectors.CommitContext{CheckpointID: 1, Final: true}, [][]byte{counts{Checkpoint: 1, Rows: map[string]int64{"fake": 3}}.encode()}); err != nil {
		t.Fatalf("late checkpoint 1: %v", err)
	}
	w1.Write(three)
	w2.Write(three)
	err := commitAll(t, c, 4, false, w1, w2)
	if err == nil || err.Error() != "assert rule MAX_ROW 10 failed: 12 rows" {
		t.Fatalf("12 rows: %v", err)
	}
	var f *Failure
	if !errors.As(err, &f) || !f.Permanent() {
		t.Fatal("a broken row rule is not a permanent Failure")
	}
}

// TestRowCountsSurviveRestore: counts live in the writers' state, so a job
// restored from checkpoint n still sees the rows written before n.
func TestRowCountsSurviveRestore(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{ rule_type = MIN_ROW, rule_value = 4 }, { rule_type = MAX_ROW, rule_value = 4 }] }`, people)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	two := batch(t, people, []any{int64(1), "a", int64(1)}, []any{int64(2), "b", int64(2)})
	w.Write(two)
	state, _ := w.SnapshotState(1)
	// crash; the rows after checkpoint 1 are replayed into a new writer and committer
	w2, err := s.CreateWriter(context.Background(), connectors.TaskInfo{}, state)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := s.CreateAggregatedCommitter()
	w2.Write(two)
	if err := commitAll(t, c, 2, true, w2); err != nil {
		t.Fatalf("2 + 2 rows across a restore: %v", err)
	}
}

func TestWriterFailsEarlyOnMaxRow(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{ rule_type = MAX_ROW, rule_value = 1 }] }`, people)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 2}, nil)
	err := w.Write(batch(t, people, []any{int64(1), "a", int64(1)}, []any{int64(2), "b", int64(2)}))
	if err == nil || !strings.Contains(err.Error(), "MAX_ROW 1 failed: subtask 2 alone wrote 2 rows") {
		t.Fatalf("got %v", err)
	}
}

func TestTablesConfigsAndTableNames(t *testing.T) {
	t1 := row.MustSchema("test.table1", row.Field{Name: "c_int", Type: row.Int})
	t2 := row.MustSchema("test.table2", row.Field{Name: "c_string", Type: row.String})
	rules := `rules {
  table-names = ["test.table1", "test.table2"]
  tables_configs = [
    { table_path = "test.table1", row_rules = [{ rule_type = MIN_ROW, rule_value = 2 }, { rule_type = MAX_ROW, rule_value = 2 }],
      field_rules = [{ field_name = c_int, field_type = int, field_value = [{ rule_type = NOT_NULL }] }] }
    { table_path = "test.table2", row_rules = [{ rule_type = MIN_ROW, rule_value = 1 }],
      field_rules = [{ field_name = c_string, field_value = [{ rule_type = MIN_LENGTH, rule_value = 2 }] }] }
  ]
}`
	s := mustSink(t, rules, t1, t2)
	c, _ := s.CreateAggregatedCommitter()
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, t1, []any{int64(1)}, []any{int64(2)})); err != nil {
		t.Fatal(err)
	}
	if err := commitAll(t, c, 1, true, w); err == nil || !strings.Contains(err.Error(), "MIN_ROW 1 failed for table test.table2: 0 rows") {
		t.Fatalf("table2 empty: %v", err)
	}
	if err := w.Write(batch(t, t2, []any{"x"})); err == nil || !strings.Contains(err.Error(), `"c_string" MIN_LENGTH 2 failed at row 1 of table test.table2`) {
		t.Fatalf("short string: %v", err)
	}
	w2, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{SubtaskIndex: 1}, nil)
	w2.Write(batch(t, t2, []any{"xy"}))
	if err := commitAll(t, c, 2, true, w, w2); err != nil {
		t.Fatalf("both tables: %v", err)
	}

	only1 := mustSink(t, `rules { table-names = ["test.table1", "test.table2"] }`, t1, t2)
	c1, _ := only1.CreateAggregatedCommitter()
	w3, _ := only1.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w3.Write(batch(t, t1, []any{int64(1)}))
	if err := commitAll(t, c1, 1, true, w3); err == nil || !strings.Contains(err.Error(), "table names: [test.table1] is not equal to [test.table1, test.table2]") {
		t.Fatalf("table-names: %v", err)
	}
}

// TestRunTimeRuleErrors: what SeaTunnel's AssertExecutor only meets when it
// checks a value fails the first row, not the plan, so the same rules pass
// an empty input (SeaTunnel's writers never check a value then).
func TestRunTimeRuleErrors(t *testing.T) {
	ok := []any{int64(1), "Alice", int64(30)}
	cases := []struct {
		name, rules string
		fail        string
	}{
		{"field type differs", `field_rules = [{ field_name = age, field_type = bigint }]`, `"age" field_type bigint failed at row 1`},
		{"missing rule_value", `field_rules = [{ field_name = age, field_value = [{ rule_type = MAX }] }]`, `field "age": MAX has no rule_value`},
		{"row rule in field_value", `field_rules = [{ field_name = age, field_value = [{ rule_type = MAX_ROW, rule_value = 3 }] }]`, `"age" MAX_ROW 3 failed at row 1`},
		{"bad equals_to", `field_rules = [{ field_name = age, field_value = [{ equals_to = "old" }] }]`, "not an integer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSink(t, "rules { "+c.rules+" }", people)
			cm, _ := s.CreateAggregatedCommitter()
			empty, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
			if err := commitAll(t, cm, 1, true, empty); err != nil {
				t.Fatalf("no rows: %v", err)
			}
			w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
			err := w.Write(batch(t, people, ok))
			var f *Failure
			if err == nil || !strings.Contains(err.Error(), c.fail) || !errors.As(err, &f) {
				t.Fatalf("want a *Failure containing %q, got %v", c.fail, err)
			}
		})
	}
}

// TestFieldTypePerValue pins AssertExecutor.checkType: a null value passes
// every field_type, a non-null one fails "null" and every type but its
// column's, and the elements of arrays, maps and rows are held to the same
// rules.
func TestFieldTypePerValue(t *testing.T) {
	schema := row.MustSchema("t",
		row.Field{Name: "s", Type: row.String, Nullable: true},
		row.Field{Name: "n", Type: row.Null, Nullable: true},
		row.Field{Name: "a", Type: row.ArrayOf(row.Int), Nullable: true},
		row.Field{Name: "m", Type: row.MapOf(row.String, row.String), Nullable: true},
		row.Field{Name: "r", Type: row.RowOf(row.Field{Name: "x", Type: row.Int}, row.Field{Name: "y", Type: row.String}), Nullable: true},
		row.Field{Name: "d", Type: row.DecimalOf(10, 2), Nullable: true},
	)
	full := []any{"v", nil, []any{int64(1)}, row.OrderedMap{{Key: "k", Value: "v"}}, []any{int64(1), "y"}, "1.50"}
	cases := []struct {
		name, rule string
		vals       map[int]any // changes to full
		pass       bool
	}{
		{"string", `field_name = s, field_type = string`, nil, true},
		{"null string passes", `field_name = s, field_type = string`, map[int]any{0: nil}, true},
		{"null passes any type", `field_name = s, field_type = "array<int>"`, map[int]any{0: nil}, true},
		{"null string is null", `field_name = s, field_type = "null"`, map[int]any{0: nil}, true},
		{"a string is not null", `field_name = s, field_type = "null"`, nil, false},
		{"string is not int", `field_name = s, field_type = int`, nil, false},
		{"null column as null", `field_name = n, field_type = "null", field_value = [{ rule_type = NULL }]`, nil, true},
		{"null column as string", `field_name = n, field_type = string`, nil, true},
		{"null column with equals_to", `field_name = n, field_value = [{ rule_type = NULL, equals_to = "x" }]`, nil, true},
		{"array", `field_name = a, field_type = "array<int>"`, nil, true},
		{"array null element", `field_name = a, field_type = "array<int>"`, map[int]any{2: []any{int64(1), nil}}, true},
		{"array element type differs", `field_name = a, field_type = "array<string>"`, map[int]any{2: []any{nil, int64(1)}}, false},
		{"array of another type", `field_name = a, field_type = "array<bigint>"`, nil, false},
		{"empty array of any type", `field_name = a, field_type = "array<string>"`, map[int]any{2: []any{}}, true},
		{"map", `field_name = m, field_type = "map<string, string>"`, nil, true},
		{"map null value", `field_name = m, field_type = "map<string, string>"`, map[int]any{3: row.OrderedMap{{Key: "k", Value: nil}}}, true},
		{"map value type differs", `field_name = m, field_type = "map<string, int>"`, nil, false},
		{"row", `field_name = r, field_type = { x = int, y = string }`, nil, true},
		{"row null field", `field_name = r, field_type = { x = int, y = string }`, map[int]any{4: []any{int64(1), nil}}, true},
		{"row null field of the null type", `field_name = r, field_type = { x = int, y = "null" }`, map[int]any{4: []any{int64(1), nil}}, true},
		{"row string field as null fails", `field_name = r, field_type = { x = int, y = "null" }`, nil, false},
		{"row field type differs", `field_name = r, field_type = { x = bigint, y = string }`, nil, false},
		{"row with fewer declared fields", `field_name = r, field_type = { x = int }`, nil, false},
		{"decimal", `field_name = d, field_type = "decimal(3, 2)"`, nil, true},
		{"decimal too precise", `field_name = d, field_type = "decimal(3, 2)"`, map[int]any{5: "10.50"}, false},
		{"decimal scale differs", `field_name = d, field_type = "decimal(10, 1)"`, nil, false},
		{"null decimal passes", `field_name = d, field_type = "decimal(1, 0)"`, map[int]any{5: nil}, true},
		{"field_type of a number is ignored", `field_name = s, field_type = 3`, nil, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := mustSink(t, "rules { field_rules = [{ "+c.rule+" }] }", schema)
			w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
			r := append([]any(nil), full...)
			for i, v := range c.vals {
				r[i] = v
			}
			err := w.Write(batch(t, schema, r))
			if c.pass && err != nil {
				t.Fatalf("want a pass, got %v", err)
			}
			if !c.pass && (err == nil || !strings.Contains(err.Error(), "field_type")) {
				t.Fatalf("want a field_type failure, got %v", err)
			}
		})
	}
}

// TestRowRulesAsSeaTunnel: the count check knows MIN_ROW and MAX_ROW only
// and ignores other rule types and equals_to in row_rules; a table_path no
// input feeds counts 0 rows.
func TestRowRulesAsSeaTunnel(t *testing.T) {
	s := mustSink(t, `rules { row_rules = [{ rule_type = NOT_NULL }, { rule_type = MAX_ROW, rule_value = 1, equals_to = 5 }] }`, people)
	c, _ := s.CreateAggregatedCommitter()
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w.Write(batch(t, people, []any{int64(1), "a", int64(1)}))
	if err := commitAll(t, c, 1, true, w); err != nil {
		t.Fatalf("one row: %v", err)
	}
	w.Write(batch(t, people, []any{int64(2), "b", int64(2)}))
	if err := commitAll(t, c, 2, true, w); err == nil || !strings.Contains(err.Error(), "MAX_ROW 1 failed") {
		t.Fatalf("two rows: %v", err)
	}

	other := `rules { tables_configs = [{ table_path = "other", row_rules = [{ rule_type = %s, rule_value = 1 }] }] }`
	for typ, fail := range map[string]bool{"MIN_ROW": true, "MAX_ROW": false} {
		s := mustSink(t, strings.Replace(other, "%s", typ, 1), people)
		c, _ := s.CreateAggregatedCommitter()
		w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
		w.Write(batch(t, people, []any{int64(1), "a", int64(1)}))
		err := commitAll(t, c, 1, true, w)
		if fail != (err != nil) || (fail && !strings.Contains(err.Error(), "MIN_ROW 1 failed for table other: 0 rows")) {
			t.Errorf("%s on a table no input feeds: %v", typ, err)
		}
	}
}

// TestOneTableConfigAppliesToAll: with a single tables_configs entry that
// has field_rules, SeaTunnel's writer applies them to the rows of every
// table.
func TestOneTableConfigAppliesToAll(t *testing.T) {
	t1 := row.MustSchema("test.table1", row.Field{Name: "c_int", Type: row.Int})
	t2 := row.MustSchema("test.table2", row.Field{Name: "c_int", Type: row.Int})
	s := mustSink(t, `rules { tables_configs = [{ table_path = "test.table1", field_rules = [{ field_name = c_int, field_value = [{ rule_type = MAX, rule_value = 5 }] }] }] }`, t1, t2)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, t2, []any{int64(4)})); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(batch(t, t2, []any{int64(6)})); err == nil || !strings.Contains(err.Error(), "MAX 5 failed at row 2 of table test.table2") {
		t.Fatalf("table2 row over the table1 rule: %v", err)
	}
	// a table without the field fails on its first row, not at plan time
	t3 := row.MustSchema("test.table3", row.Field{Name: "other", Type: row.Int})
	s = mustSink(t, `rules { tables_configs = [{ table_path = "test.table1", field_rules = [{ field_name = c_int, field_value = [{ rule_type = MAX, rule_value = 5 }] }] }] }`, t1, t3)
	w, _ = s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, t3, []any{int64(1)})); err == nil || !strings.Contains(err.Error(), `field "c_int" is not in table test.table3`) {
		t.Fatalf("table3 without c_int: %v", err)
	}
}

// TestTablesOption: Assert's tables = [{ table_path, rules }] gives each
// table the rules of its entry (unlike tables_configs, one entry's
// field_rules reach no other table), a table no entry names the top-level
// rules, and one with neither fails the plan.
func TestTablesOption(t *testing.T) {
	t1 := row.MustSchema("test.table1", row.Field{Name: "c_int", Type: row.Int})
	t2 := row.MustSchema("test.table2", row.Field{Name: "c_int", Type: row.Int})
	t3 := row.MustSchema("test.table3", row.Field{Name: "c_int", Type: row.Int})
	body := `tables = [
  { table_path = "test.table1", rules = { row_rules = [{ rule_type = MIN_ROW, rule_value = 2 }],
      field_rules = [{ field_name = c_int, field_value = [{ rule_type = MAX, rule_value = 5 }] }] } }
  { table_path = "test.table2", rules = { row_rules = [{ rule_type = MAX_ROW, rule_value = 1 }] } }
]`
	s := mustSink(t, body, t1, t2)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, t2, []any{int64(9)})); err != nil {
		t.Fatalf("table1's field rule reached table2: %v", err)
	}
	if err := w.Write(batch(t, t1, []any{int64(1)}, []any{int64(9)})); err == nil || !strings.Contains(err.Error(), "MAX 5 failed at row 2 of table test.table1") {
		t.Fatalf("table1 over its MAX: %v", err)
	}
	s = mustSink(t, body, t1, t2)
	c, _ := s.CreateAggregatedCommitter()
	w, _ = s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w.Write(batch(t, t1, []any{int64(1)}))
	w.Write(batch(t, t2, []any{int64(1)}))
	if err := commitAll(t, c, 1, true, w); err == nil || !strings.Contains(err.Error(), "MIN_ROW 2 failed for table test.table1: 1 rows") {
		t.Fatalf("table1 short of its MIN_ROW: %v", err)
	}
	w.Write(batch(t, t1, []any{int64(2)}))
	if err := commitAll(t, c, 2, true, w); err != nil {
		t.Fatalf("both tables within their rules: %v", err)
	}
	if err := w.Write(batch(t, t2, []any{int64(2)})); err == nil || !strings.Contains(err.Error(), "MAX_ROW 1 failed of table test.table2") {
		t.Fatalf("table2 over its MAX_ROW: %v", err)
	}

	// an entry for a table that is no input checks nothing
	s = mustSink(t, `tables = [
  { table_path = "test.table1", rules = { row_rules = [{ rule_type = MIN_ROW, rule_value = 1 }] } }
  { table_path = "test.table9", rules = { row_rules = [{ rule_type = MIN_ROW, rule_value = 1 }] } }
]`, t1)
	c, _ = s.CreateAggregatedCommitter()
	w, _ = s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w.Write(batch(t, t1, []any{int64(1)}))
	if err := commitAll(t, c, 1, true, w); err != nil {
		t.Fatalf("entry for a table that is no input: %v", err)
	}

	// table3 is in no entry: the top-level rules are its own
	s = mustSink(t, body+"\nrules { row_rules = [{ rule_type = MIN_ROW, rule_value = 3 }] }", t1, t2, t3)
	c, _ = s.CreateAggregatedCommitter()
	w, _ = s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	w.Write(batch(t, t1, []any{int64(1)}, []any{int64(2)}))
	w.Write(batch(t, t3, []any{int64(1)}))
	if err := commitAll(t, c, 1, true, w); err == nil || !strings.Contains(err.Error(), "MIN_ROW 3 failed for table test.table3: 1 rows") {
		t.Fatalf("table3 under the top-level rules: %v", err)
	}

	for _, c := range []struct{ body, want string }{
		{body, `no entry has table_path "test.table3", and there are no top-level rules`},
		{`tables = [{ table_path = "test.table3" }]`, `tables[0].rules": missing`},
		{`tables = [{ rules { row_rules = [{ rule_type = MIN_ROW, rule_value = 1 }] } }]`, `tables[0].table_path": missing`},
		{`tables = [{ table_path = "test.table3", rules {} }]`, "Assert rule config is empty"},
		{`tables = [{ table_path = "test.table3", rules { row_rules = [{ rule_type = MIN_ROWS, rule_value = 1 }] } }]`, `tables[0].rules.row_rules[0].rule_type": unknown rule type MIN_ROWS`},
		{"tables = [\n { table_path = a, rules { table-names = [a] } },\n { table_path = a, rules { table-names = [a] } }\n]", `table "a" has rules twice`},
		{`tables = { table_path = a }`, "expected a list"},
		{`parallelism = 1`, `"rules": missing`},
	} {
		if _, err := newSink(t, c.body, t3); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.body, err, c.want)
		}
	}
}

// TestTimestampTZRules: field_type timestamp_tz fits only a timestamp_tz
// column, and equals_to is OffsetDateTime.equals of the Java text form:
// the same instant at another offset is not equal.
func TestTimestampTZRules(t *testing.T) {
	schema := row.MustSchema("fake",
		row.Field{Name: "tz", Type: row.TimestampTZ, Nullable: true},
		row.Field{Name: "ts", Type: row.Timestamp, Nullable: true},
	)
	s := mustSink(t, `rules { field_rules = [
  { field_name = tz, field_type = timestamp_tz, field_value = [{ rule_type = NOT_NULL, equals_to = "2024-01-01T10:00+08:00" }] }
] }`, schema)
	w, _ := s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	for _, good := range []string{"2024-01-01T10:00:00+08:00", "2024-01-01 10:00:00.000+08:00"} {
		if err := w.Write(batch(t, schema, []any{good, "2024-01-01T10:00:00"})); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
	for _, bad := range []any{"2024-01-01T02:00:00Z", "2024-01-01T10:00:00+05:45", "2024-01-01T10:00:01+08:00", nil} {
		err := w.Write(batch(t, schema, []any{bad, "2024-01-01T10:00:00"}))
		if err == nil || !strings.Contains(err.Error(), `"tz"`) {
			t.Errorf("%v: want a failure, got %v", bad, err)
		}
	}
	if err := w.Write(batch(t, schema, []any{"2024-01-01T02:00Z", nil})); err == nil || !strings.Contains(err.Error(), "value 2024-01-01T02:00Z") {
		t.Errorf("the failure does not print the Java text form: %v", err)
	}
	// A timestamp column is not a timestamp_tz, nor the other way round.
	if _, err := newSink(t, `rules { field_rules = [{ field_name = ts, field_type = timestamp_tz }] }`, row.MustSchema("fake", row.Field{Name: "ts", Type: row.Timestamp})); err == nil || !strings.Contains(err.Error(), "not timestamp_tz") {
		t.Errorf("timestamp as timestamp_tz: %v", err)
	}
	if _, err := newSink(t, `rules { field_rules = [{ field_name = tz, field_type = timestamp }] }`, row.MustSchema("fake", row.Field{Name: "tz", Type: row.TimestampTZ})); err == nil || !strings.Contains(err.Error(), "not timestamp") {
		t.Errorf("timestamp_tz as timestamp: %v", err)
	}
	// equals_to without an offset is not an OffsetDateTime: the rule fails
	// the job with the reason on the first value it compares.
	s = mustSink(t, `rules { field_rules = [{ field_name = tz, field_value = [{ equals_to = "2024-01-01T10:00:00" }] }] }`, schema)
	w, _ = s.CreateWriter(context.Background(), connectors.TaskInfo{}, nil)
	if err := w.Write(batch(t, schema, []any{"2024-01-01T10:00:00+08:00", nil})); err == nil || !strings.Contains(err.Error(), "not a timestamp with an offset") {
		t.Errorf("equals_to without an offset: %v", err)
	}
}
