package sqlengine

import (
	"errors"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

func TestOutputSchema(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"select * from fake", "fake(id int, name string, age int, score double, big bigint, price decimal(10, 2), born date, seen timestamp, ok boolean)"},
		{"select id, name from fake", "fake(id int, name string)"},
		{"select id, concat(name, '_') as name, age+1 as age from fake where id>0", "fake(id int, name string, age int)"},
		{"select age+1, age + big, score*2, price+1, price*score from fake", "fake(age + 1 int, age + big bigint, score * 2 double, price + 1 decimal(10, 2), price * score decimal(10, 2))"},
		{"select upper(name), LENGTH(name), Cast(age AS string), x.id from fake", "fake(upper(name) string, LENGTH(name) bigint, CAST(age AS string) string, id int)"},
		{"select `id`, \"name\" n2, `age` as `a g e` from fake", "fake(id int, n2 string, a g e int)"},
		{"select `age + 1`, age > 1, age is null from fake", ""},
		{"select age > 1, age is null, name like 'x%', id in (1,2) from fake", "fake(age > 1 boolean, age IS NULL boolean, name LIKE 'x%' boolean, id IN (1, 2) boolean)"},
		{"select case when age > 1 then 1 else 2 end from fake", "fake(CASE WHEN age > 1 THEN 1 ELSE 2 END int)"},
		{"select case when age > 1 then big else age end as c from fake", "fake(c bigint)"},
		{"select case when age > 1 then price else score end as c from fake", "fake(c decimal(10, 2))"},
		{"select case when age > 1 then null else 'x' end as c from fake", "fake(c string)"},
		{"select null as n, 1 as i, 3000000000 as b, 1.5 as d, 'x' as s, true as t from fake", "fake(n null, i int, b bigint, d double, s string, t boolean)"},
		{"select -2147483648 as x, -2147483649 as y from fake", "fake(x bigint, y bigint)"},
		{"select *, id as id2 from fake where ok", "fake(id int, name string, age int, score double, big bigint, price decimal(10, 2), born date, seen timestamp, ok boolean, id2 int)"},
		{"select (age) from fake", "fake((age) int)"},
		{"select try_cast(name as int) from fake", "fake(TRY_CAST(name AS int) int)"},
		{"select extract(year from born), current_date from fake", "fake(EXTRACT(year FROM born) int, current_date date)"},
		{"select cast(price as decimal(5, 1)) from fake", "fake(CAST(price AS decimal (5, 1)) decimal(5, 1))"},
	} {
		tr, err := Compile(tc.q, people())
		if tc.want == "" {
			if err == nil {
				t.Errorf("%s: no error", tc.q)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := tr.OutputSchema().String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, got, tc.want)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"SELECT * FROM nope", `table "nope" not found at 1:15 of query (the input table is fake, a name in plugin_input or dual)`},
		{"select id from `fake1`", `table "fake1" not found at 1:16 of query`},
		{"select agee from fake", `unknown column "agee" at 1:8 of query (columns: id, name, age, score, big, price, born, seen, ok)`},
		{"select id, agee from fake", `unknown column "agee" at 1:12 of query (columns: id, name, age,`},
		{"select id from fake where Age > 1", `unknown column "Age" at 1:27 of query`},
		{"select FOO(id) from fake", `unknown function "FOO" at 1:8 of query`},
		{"select id from fake where name = 1", "type mismatch: cannot compare string with int at 1:32 of query"},
		{"select id from fake where name\n  > age", "type mismatch: cannot compare string with int at 2:3 of query"},
		{"select id from fake where name in ('a', 1)", "type mismatch: cannot compare string with int in IN list at 1:41 of query"},
		{"select id from fake where born > 'yesterday'", "cannot compare date with 'yesterday'"},
		{"select id from fake where ok = born", "type mismatch: cannot compare boolean with date"},
		{"select name + 1 from fake", "type mismatch: cannot apply + to string and int at 1:13 of query"},
		{"select born - 1 from fake", "type mismatch: cannot apply - to date and int"},
		{"select -name from fake", "type mismatch: cannot apply unary - to string"},
		{"select id from fake where age", "WHERE must be a boolean condition, got int age at 1:27 of query"},
		{"select id from fake where ok and age", "the right operand of AND must be a boolean condition, got int age"},
		{"select not age from fake", "the operand of NOT must be a boolean condition"},
		{"select case when age then 1 end from fake", "a WHEN of CASE must be a boolean condition"},
		{"select case when ok then 1 else 'x' end from fake", "type mismatch: CASE results of types int and string at 1:33 of query"},
		{"select name like 1 from fake", "type mismatch: LIKE needs strings, got int 1"},
		{"select name like 'x' escape 'ab' from fake", "ESCAPE must be a string of one character"},
		{"select id, id from fake", `duplicate output column "id" (also at 1:8); rename one with AS at 1:12 of query`},
		{"select *, name from fake", `duplicate output column "name"`},
		{"select id as x, name as x from fake", `duplicate output column "x"`},
		{"select cast(born as int) from fake", "cannot CAST date to INT at 1:21 of query"},
		{"select date '2024-13-01' from fake", "bad DATE literal '2024-13-01'"},
		{"select 99999999999999999999999 from fake", ""},
		{"select name from fake lateral view explode(name) as x", "EXPLODE needs an array, got string"},
		{"select id from fake lateral view explode(tags) as x", `the LATERAL VIEW column "tags" must be in the select list`},
		{"select id from fake lateral view posexplode(x) as y", "unsupported LATERAL VIEW function posexplode (only EXPLODE)"},
	} {
		_, err := Compile(tc.q, people())
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.q, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.q, tc.want)
			continue
		}
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("%s: %T is not a *QueryError", tc.q, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.q, err, tc.want)
		}
	}
}

func TestNested(t *testing.T) {
	inner := row.RowOf(
		row.Field{Name: "c_inner_int", Type: row.Int},
		row.Field{Name: "c_inner_string", Type: row.String},
		row.Field{Name: "c_map_1", Type: row.MapOf(row.String, row.String)},
		row.Field{Name: "c_map_2", Type: row.MapOf(row.String, row.MapOf(row.String, row.String))},
	)
	s := row.MustSchema("t1",
		row.Field{Name: "c_string", Type: row.String},
		row.Field{Name: "c_array", Type: row.ArrayOf(row.String)},
		row.Field{Name: "c_map", Type: row.MapOf(row.String, row.String)},
		row.Field{Name: "c_row", Type: row.RowOf(
			row.Field{Name: "c_int", Type: row.Int},
			row.Field{Name: "c_string", Type: row.String},
			row.Field{Name: "next_row", Type: row.RowOf(
				row.Field{Name: "c_int", Type: row.Int},
				row.Field{Name: "c_string", Type: row.String},
			)},
			row.Field{Name: "c_inner_row", Type: inner},
		)},
	)
	m := row.OrderedMap{{Key: "cmk1", Value: "cmv1"}, {Key: "cmk2", Value: "cmv2"}}
	rows := [][]any{
		{"cs", []any{"ca1", "ca2", "ca3"}, m, []any{1, "cr1", []any{2, "cr2"}, []any{7, "in", m, row.OrderedMap{}}}},
		{nil, nil, nil, nil},
		{"x", []any{}, row.OrderedMap{}, []any{nil, nil, nil, nil}},
	}
	for _, tc := range []struct {
		q      string
		schema string
		want   []string
	}{
		{"select c_string as c1,c_array[0] as c2,c_map['cmk1'] as c3,c_row.next_row.c_string as c4 from t1",
			"t1(c1 string, c2 string, c3 string, c4 string)",
			[]string{"cs | ca1 | cmv1 | cr2", "null | null | null | null", "x | null | null | null"}},
		{"select c_row.c_inner_row.c_inner_int, c_row.c_inner_row.c_map_1.cmk2, c_map.cmk1, c_map.nope from t1",
			"t1(c_inner_int int, cmk2 string, cmk1 string, nope string)",
			[]string{"7 | cmv2 | cmv1 | null", "null | null | null | null", "null | null | null | null"}},
		{"select c_row.c_inner_row.c_inner_int + 1 as x, upper(c_row.c_inner_row.c_inner_string) as y from t1 where c_row.c_int = 1",
			"t1(x int, y string)",
			[]string{"8 | IN"}},
		// A table-qualified column; both are named c_string.
		{"select t1.c_string, c_row.c_string from t1",
			"", nil},
		{"select c_row.next_row from t1", "t1(next_row row<c_int int, c_string string>)", []string{"[2, cr2] | ", "null", "[null, null]"}},
	} {
		tr, err := Compile(tc.q, s)
		if tc.schema == "" {
			if err == nil {
				t.Errorf("%s: want a duplicate-column error", tc.q)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := tr.OutputSchema().String(); got != tc.schema {
			t.Errorf("%s: schema %s", tc.q, got)
		}
		out, err := tr.Process(batchOf(t, s, rows))
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		got := render2(out)
		if tc.q == "select c_row.next_row from t1" {
			if len(got) != 3 || got[0] != "[2, cr2]" || got[1] != "null" {
				t.Errorf("%s: %q", tc.q, got)
			}
			continue
		}
		if strings.Join(got, ";") != strings.Join(tc.want, ";") {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
	for _, tc := range []struct{ q, want string }{
		{"select c_row.nope from t1", `unknown field "nope" of c_row at 1:14 of query (fields: c_int, c_string, next_row, c_inner_row)`},
		{"select c_row.c_inner_row.c_map_2.k.kk from t1", "a map nested in a map cannot be read by a path"},
		{"select c_string.x from t1", "c_string is string, not a row or map: it has no field \"x\""},
		{"select c_map[1] from t1", "type mismatch: the key of map<string, string> must be string, got int"},
	} {
		if _, err := Compile(tc.q, s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.q, err, tc.want)
		}
	}
}

func TestLateralView(t *testing.T) {
	s := row.MustSchema("t",
		row.Field{Name: "id", Type: row.Int},
		row.Field{Name: "name", Type: row.String},
		row.Field{Name: "tags", Type: row.ArrayOf(row.String)},
	)
	rows := [][]any{
		{1, "a,b", []any{"x", "y"}},
		{2, "c", []any{}},
		{3, nil, nil},
		{4, "d,,e", []any{"z", nil}},
	}
	in := batchOf(t, s, rows, row.Insert, row.UpdateAfter, row.Insert, row.Delete)
	for _, tc := range []struct {
		q      string
		schema string
		want   []string
	}{
		{"select id, name from t lateral view explode(split(name, ',')) as part",
			"t(id int, name string, part string)",
			[]string{"1 | a,b | a", "1 | a,b | b", "+U 2 | c | c", "-D 4 | d,,e | d", "-D 4 | d,,e | ", "-D 4 | d,,e | e"}},
		{"select * from t lateral view explode(split(name, ',')) as name",
			"t(id int, name string, tags array<string>)",
			[]string{"1 | a | [x, y]", "1 | b | [x, y]", "+U 2 | c | []", "-D 4 | d | [z, null]", "-D 4 |  | [z, null]", "-D 4 | e | [z, null]"}},
		{"select id, tags from t lateral view outer explode(tags) as tag",
			"t(id int, tags array<string>, tag string)",
			[]string{"1 | [x, y] | x", "1 | [x, y] | y", "+U 2 | [] | null", "3 | null | null", "-D 4 | [z, null] | z", "-D 4 | [z, null] | null"}},
		{"select id, tags from t lateral view explode(tags) as tag lateral view explode(array(1, 2)) as n where id = 1",
			"t(id int, tags array<string>, tag string, n int)",
			[]string{"1 | [x, y] | x | 1", "1 | [x, y] | x | 2", "1 | [x, y] | y | 1", "1 | [x, y] | y | 2"}},
		{"select id, tags from t lateral view explode(tags) as tag where id = 2", "t(id int, tags array<string>, tag string)", nil},
	} {
		tr, err := Compile(tc.q, s)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := tr.OutputSchema().String(); got != tc.schema {
			t.Errorf("%s: schema %s, want %s", tc.q, got, tc.schema)
		}
		out, err := tr.Process(in)
		if err != nil {
			t.Errorf("%s: %v", tc.q, err)
			continue
		}
		if got := render2(out); strings.Join(got, ";") != strings.Join(tc.want, ";") {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
}

func TestPrimaryKey(t *testing.T) {
	s := people()
	s.PrimaryKey = []string{"id"}
	if tr := mustCompile(t, "select id, name from fake", s); len(tr.OutputSchema().PrimaryKey) != 1 {
		t.Error("key dropped")
	}
	if tr := mustCompile(t, "select id + 1 as id, name from fake", s); len(tr.OutputSchema().PrimaryKey) != 0 {
		t.Error("key kept for a computed column")
	}
}
