package jdbc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// multi_table_sink_replica needs keys and no exactly-once, and says so.
func TestReplicasRefused(t *testing.T) {
	tg := targets(t)[0]
	noKey := row.MustSchema("src.nokey", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String})
	for _, c := range []struct {
		name, body string
		in         *row.Schema
		want       string
	}{
		{"zero", "table = r0\nmulti_table_sink_replica = 0\n", testSchema, "must be at least 1, got 0"},
		{"exactly-once", "table = r1\nmulti_table_sink_replica = 2\nis_exactly_once = true\nxa_data_source_class_name = \"" + xaClasses[tg.dialect][0] + "\"\n", testSchema, "is_exactly_once"},
		{"no key", "table = r2\nmulti_table_sink_replica = 2\n", noKey, "table src.nokey has none: set primary_keys"},
		{"query", "query = \"INSERT INTO r3 VALUES (?, ?)\"\nmulti_table_sink_replica = 2\n", noKey, "a custom query has none"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := resolvedSink(t, tg, c.body, c.in)
			if err == nil || !strings.Contains(err.Error(), "multi_table_sink_replica") || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error on multi_table_sink_replica saying %q", err, c.want)
			}
		})
	}
	// A key from primary_keys is enough.
	if _, err := resolvedSink(t, tg, "table = r4\nmulti_table_sink_replica = 2\nprimary_keys = [\"id\"]\n", noKey); err != nil {
		t.Fatal(err)
	}
}

// Three writers of one table: rows are spread over all three sessions by
// key, every change of a key lands in order (inserts, updates that rewrite
// a key several times within and across batches, deletes, re-inserts), and
// a schema change runs once and reaches every writer.
func TestReplicasWriteEveryChangeOfAKeyInOrder(t *testing.T) {
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tbl := "people_replicas"
			tg.exec(t, "DROP TABLE IF EXISTS "+tbl)
			body := fmt.Sprintf("generate_sink_sql = true\ndatabase = %q\ntable = %q\nbatch_size = 7\nmulti_table_sink_replica = 3\n", tg.db, tg.tablePathOf(tbl))
			r := savedSink(t, tg, body, testSchema)
			cw, err := (&sink{r: r}).CreateWriter(testCtx(t), testTask, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cw.Close()
			rw, ok := cw.(*replicaWriter)
			if !ok || len(rw.ws) != 3 {
				t.Fatalf("writer %T, want a replicaWriter of 3", cw)
			}
			want := map[int64]string{}
			var ks []row.Kind
			var rows [][]any
			add := func(k row.Kind, id int64, name string) {
				ks, rows = append(ks, k), append(rows, person(id, name))
				switch k {
				case row.Insert, row.UpdateAfter:
					want[id] = name
				case row.Delete:
					delete(want, id)
				}
			}
			send := func() {
				t.Helper()
				if err := cw.Write(batchOf(t, testSchema, ks, rows...)); err != nil {
					t.Fatal(err)
				}
				ks, rows = nil, nil
			}
			for id := int64(1); id <= 60; id++ {
				add(row.Insert, id, fmt.Sprint("n", id))
			}
			send()
			for round := range 5 {
				for id := int64(1); id <= 60; id += int64(round + 1) {
					add(row.UpdateBefore, id, want[id])
					add(row.UpdateAfter, id, fmt.Sprintf("n%d-r%d", id, round))
				}
				for id := int64(3 + round); id <= 60; id += 9 {
					if _, ok := want[id]; ok {
						add(row.Delete, id, want[id])
					} else {
						add(row.Insert, id, fmt.Sprintf("back%d-r%d", id, round))
					}
				}
				send()
			}
			if _, err := cw.PrepareCommit(1); err != nil {
				t.Fatal(err)
			}
			for k, w := range rw.ws {
				if w.idle > 0 || (w.pg == nil && w.my == nil) {
					t.Errorf("writer %d wrote nothing (no session): the rows were not spread", k)
				}
			}
			check := func(extra string) {
				t.Helper()
				got := tg.dump(t, tbl, "id")
				if len(got) != len(want) {
					t.Fatalf("target has %d rows, want %d", len(got), len(want))
				}
				for _, line := range got {
					f := strings.Split(line, "|")
					var id int64
					fmt.Sscan(f[0], &id)
					if f[1] != want[id] {
						t.Errorf("id %d: name %q, want %q", id, f[1], want[id])
					}
					if extra != "" && f[len(f)-1] != extra {
						t.Errorf("id %d: added column %q, want %q", id, f[len(f)-1], extra)
					}
				}
			}
			check("")

			cols := []row.ColumnChange{{Op: row.AddColumn, Field: row.Field{Name: "tag", Type: row.String, Nullable: true}, Default: "'t0'", MySQLType: "varchar(20)"}}
			next, err := row.Apply(testSchema, cols)
			if err != nil {
				t.Fatal(err)
			}
			if err := cw.(interface {
				ApplySchemaChange(*row.SchemaChange) error
			}).ApplySchemaChange(&row.SchemaChange{Version: 1, Before: testSchema, After: next, Columns: cols}); err != nil {
				t.Fatal(err)
			}
			var nks []row.Kind
			var nrows [][]any
			for id := int64(1); id <= 60; id++ {
				if name, ok := want[id]; ok {
					want[id] = name + "+"
					nks = append(nks, row.Insert)
					nrows = append(nrows, append(person(id, name+"+"), "t0"))
				}
			}
			if err := cw.Write(batchOf(t, next, nks, nrows...)); err != nil {
				t.Fatal(err)
			}
			if _, err := cw.PrepareCommit(2); err != nil {
				t.Fatal(err)
			}
			check("t0")
		})
	}
}
