package jdbc

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// Every kind of clause runs on both targets: the target's columns follow
// (names, order where the target places columns, nullability, defaults),
// rows before and after are written by their own schemas, and the same
// change applied again — a restore — or by a second writer of the sink
// changes nothing and is no error.
func TestApplySchemaChange(t *testing.T) {
	v0 := row.MustSchema("src.sc", row.Field{Name: "id", Type: row.BigInt}, row.Field{Name: "v", Type: row.String, Nullable: true},
		row.Field{Name: "n", Type: row.Int, Nullable: true})
	v0.PrimaryKey = []string{"id"}
	steps := [][]row.ColumnChange{
		{{Op: row.AddColumn, Field: row.Field{Name: "a", Type: row.String}, Default: "'dflt'", After: "id", MySQLType: "varchar(20)"},
			{Op: row.AddColumn, Field: row.Field{Name: "b", Type: row.Double, Nullable: true, Comment: "it's b"}, First: true}},
		{{Op: row.ChangeColumn, Name: "n", Field: row.Field{Name: "n2", Type: row.BigInt, Nullable: true}}},
		{{Op: row.ChangeColumn, Name: "v", Field: row.Field{Name: "v", Type: row.String}, Default: "'vv'"}},
		{{Op: row.DropColumn, Name: "a"}, {Op: row.RenameColumn, Name: "b", Field: row.Field{Name: "b2"}}},
	}
	for _, tg := range targets(t) {
		t.Run(tg.name, func(t *testing.T) {
			tg.exec(t, "DROP TABLE IF EXISTS sc")
			_, w := openSink(t, tg, fmt.Sprintf("database = %q\ntable = %q\nprimary_keys = [\"id\"]\n", tg.db, tg.tablePathOf("sc")), v0)
			w2, err := newWriter(testCtx(t), w.r, testTask)
			if err != nil {
				t.Fatal(err)
			}
			defer w2.Close()
			write := func(s *row.Schema, id int64) {
				t.Helper()
				vals := make([]any, len(s.Fields))
				for j, f := range s.Fields {
					switch f.Type.ID {
					case row.TypeString:
						vals[j] = fmt.Sprintf("%s%d", f.Name, id)
					case row.TypeDouble:
						vals[j] = float64(id) / 2
					case row.TypeInt:
						vals[j] = int32(id)
					default:
						vals[j] = id
					}
				}
				vals[s.Index("id")] = id
				if err := w.Write(batchOf(t, s, kinds(row.Insert), vals)); err != nil {
					t.Fatal(err)
				}
			}
			s := v0
			write(s, 1)
			for i, cols := range steps {
				next, err := row.Apply(s, cols)
				if err != nil {
					t.Fatal(err)
				}
				c := &row.SchemaChange{Version: int64(i + 1), Before: s, After: next, Columns: cols}
				if err := w.ApplySchemaChange(c); err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				if err := w.ApplySchemaChange(c); err != nil { // a restore brings it again
					t.Fatalf("step %d again: %v", i+1, err)
				}
				if err := w2.ApplySchemaChange(c); err != nil { // another writer of the sink
					t.Fatalf("step %d, second writer: %v", i+1, err)
				}
				write(next, int64(10+i))
				if i == 0 {
					write(s, 20) // a row of the old schema, late: the new columns get their defaults
				}
				s = next
			}
			if _, err := w.PrepareCommit(1); err != nil {
				t.Fatal(err)
			}
			want := "b2 YES, id NO, v NO 'vv', n2 YES"
			if tg.dialect == dialectPostgres {
				want = "id NO, v NO 'vv'::text, n2 YES, b2 YES" // PostgreSQL has no FIRST
			}
			if got := strings.Join(tg.columns(t, "sc"), ", "); got != want {
				t.Errorf("target columns %s, want %s", got, want)
			}
			if got, want := strings.Join(tg.dump(t, "sc", "id"), "\n"), strings.Join(wantRows[tg.dialect], "\n"); got != want {
				t.Errorf("target rows:\n%s\nwant:\n%s", got, want)
			}
		})
	}
}

// columns are table's columns on tg in order: name, nullability and
// default.
func (tg target) columns(t *testing.T, table string) []string {
	t.Helper()
	q := "SELECT COLUMN_NAME, IS_NULLABLE, COALESCE(COLUMN_DEFAULT, '') FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION"
	var out []string
	scan := func(rows interface {
		Next() bool
		Scan(...any) error
	}) {
		for rows.Next() {
			var n, null, def string
			if err := rows.Scan(&n, &null, &def); err != nil {
				t.Fatal(err)
			}
			c := n + " " + null
			if def != "" && def != "NULL" {
				c += " " + def
			}
			out = append(out, c)
		}
	}
	if tg.dialect == dialectPostgres {
		rows, err := pgConn(t, tg.db).Query(testCtx(t), strings.ReplaceAll(strings.Replace(q, "?", "'public'", 1), "?", "'"+table+"'"))
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		scan(rows)
		return out
	}
	rows, err := myDB(t, tg.db).QueryContext(testCtx(t), q, tg.db, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	scan(rows)
	return out
}

// wantRows are TestApplySchemaChange's rows by target, in its columns:
// row 1 written before every change, 20 late with the first change's old
// schema, 10 to 13 after each change.
var wantRows = map[string][]string{
	dialectPostgres: {"1|v1|1|null", "10|v10|10|5.0", "11|v11|11|5.5", "12|v12|12|6.0", "13|v13|13|6.5", "20|v20|20|null"},
	dialectMySQL:    {"null|1|v1|1", "5.0|10|v10|10", "5.5|11|v11|11", "6.0|12|v12|12", "6.5|13|v13|13", "null|20|v20|20"},
}
