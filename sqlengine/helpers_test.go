package sqlengine

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/row"
)

// people is the table of SeaTunnel's Sql docs, with a few more types.
func people() *row.Schema {
	return row.MustSchema("fake",
		row.Field{Name: "id", Type: row.Int},
		row.Field{Name: "name", Type: row.String},
		row.Field{Name: "age", Type: row.Int},
		row.Field{Name: "score", Type: row.Double},
		row.Field{Name: "big", Type: row.BigInt},
		row.Field{Name: "price", Type: row.DecimalOf(10, 2)},
		row.Field{Name: "born", Type: row.Date},
		row.Field{Name: "seen", Type: row.Timestamp},
		row.Field{Name: "ok", Type: row.Boolean},
	)
}

func date(s string) time.Time {
	t, err := row.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return t
}

func ts(s string) time.Time {
	t, err := row.ParseTimestamp(s)
	if err != nil {
		panic(err)
	}
	return t
}

func peopleRows() [][]any {
	return [][]any{
		{1, "Joy Ding", 20, 1.5, 10, "12.50", date("2000-01-31"), ts("2024-01-31T12:30:15"), true},
		{2, "May Ding", 21, 2.25, 20, "0.10", date("1999-12-31"), ts("2023-06-01T00:00:00"), false},
		{3, "Kin Dom", 24, -3.0, 30, "-7.05", date("2004-02-29"), ts("2020-02-29T23:59:59.5"), true},
		{4, "Joy Dom", 22, 0.0, 40, "100.00", date("1970-01-01"), ts("1970-01-01T00:00:00"), false},
		{5, nil, nil, nil, nil, nil, nil, nil, nil},
	}
}

// batchOf builds a batch of schema s from boxed rows.
func batchOf(t testing.TB, s *row.Schema, rows [][]any, kinds ...row.Kind) *row.Batch {
	t.Helper()
	b := row.NewBuilder(s, len(rows))
	for i, r := range rows {
		k := row.Insert
		if i < len(kinds) {
			k = kinds[i]
		}
		vals := make([]any, len(r))
		for j, v := range r {
			if x, ok := v.(int); ok {
				v = int64(x)
			}
			vals[j] = v
		}
		if err := b.AppendRow(k, vals); err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	return b.Build()
}

func mustCompile(t testing.TB, q string, s *row.Schema) *Query {
	t.Helper()
	tr, err := Compile(q, s)
	if err != nil {
		t.Fatalf("compile %q: %v", q, err)
	}
	return tr
}

// run compiles q over s, processes rows, and renders the output rows as
// text (Java-like, null as "null"), one string per row joined by " | ".
func run(t testing.TB, q string, s *row.Schema, rows [][]any) ([]string, *Query, error) {
	t.Helper()
	tr := mustCompile(t, q, s)
	in := batchOf(t, s, rows)
	out, err := tr.Process(in)
	samePacked(t, q, func() *Query { return mustCompile(t, q, s) }, in, out, err)
	if err != nil {
		return nil, tr, err
	}
	return render2(out), tr, nil
}

// samePacked processes in again as the row codec decodes it (a batch from
// another node: its string columns packed, row/packed.go) with a fresh
// query from compile, and fails t unless that gives the same rows or the
// same error as out, err did.
func samePacked(t testing.TB, q string, compile func() *Query, in, out *row.Batch, err error) {
	t.Helper()
	packed, _, derr := row.NewDecoder().Decode(row.AppendBatch(nil, in))
	if derr != nil {
		t.Fatalf("decode: %v", derr)
	}
	pout, perr := compile().Process(packed)
	if fmt.Sprint(perr) != fmt.Sprint(err) {
		t.Fatalf("%q over packed strings: error %v, over vectors %v", q, perr, err)
	}
	if err == nil && !slices.Equal(render2(pout), render2(out)) {
		t.Fatalf("%q over packed strings:\n%q\nover vectors:\n%q", q, render2(pout), render2(out))
	}
}

func render2(b *row.Batch) []string {
	if b == nil {
		return nil
	}
	var res []string
	for i := 0; i < b.Len(); i++ {
		parts := make([]string, len(b.Cols))
		for j, c := range b.Cols {
			if b.Schema.Fields[j].Type.Storage() != c.Type.Storage() {
				parts[j] = fmt.Sprintf("<storage mismatch %s vs %s>", b.Schema.Fields[j].Type, c.Type)
				continue
			}
			var v val
			readVal(c, i, &v)
			parts[j] = string(appendJava(nil, b.Schema.Fields[j].Type, &v))
		}
		s := strings.Join(parts, " | ")
		if b.Kind(i) != row.Insert {
			s = b.Kind(i).Short() + " " + s
		}
		res = append(res, s)
	}
	return res
}
