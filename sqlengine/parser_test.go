package sqlengine

import (
	"errors"
	"strings"
	"testing"
)

func TestParseGood(t *testing.T) {
	for _, q := range []string{
		"select * from t",
		"SELECT id FROM t;",
		"select t.* from t",
		"select id, name n, age AS a, `select` from t",
		`select "id", ` + "`name`" + ` from "t"`,
		"select a.b.c, arr[0], m['k'], arr[1 + 1] from t",
		"select -1, +2, - -3, 1.5, .5, 1e3, 2.5E-2, 'it''s', '' from t",
		"select true, false, null, TRUE from t",
		"select DATE '2024-01-31', TIME '12:00:00', TIMESTAMP '2024-01-31 12:00:00' from t",
		"select a + b * c - d / e % f || g from t",
		"select a = b, a <> b, a != b, a < b, a <= b, a > b, a >= b from t",
		"select * from t where a is null and b is not null or not c",
		"select * from t where a in (1, 2, 3) and b not in ('x') and c between 1 and 2 and d not between 3 and 4",
		"select * from t where a like 'x%' and b not like '_y' escape '\\\\'",
		"select case when a > 1 then 'x' when a > 0 then 'y' else 'z' end from t",
		"select case a when 1 then 'one' else 'other' end from t",
		"select cast(a as int), cast(b as decimal(10, 2)), cast(c as varchar(20)), convert(d as bigint) from t",
		"select try_cast(a as int), TRY_CAST(b AS decimal(10, 2)) from t",
		"select extract(year from d), trim(both 'x' from s), trim(leading from s), trim(s), trim(s, 'x') from t",
		"select current_date, current_timestamp, now(), uuid() from t",
		"select concat(a, b, c), f() from t -- comment\n",
		"select /* block\ncomment */ a from t",
		"select * from dual lateral view explode(split(name, ',')) as name lateral view outer explode(arr) tbl as x",
		"select\n  id,\n  name\nfrom\n  t\nwhere\n  id > 0",
		"select date, time, year from t",
		"select \"a\"\"b\" from t",
	} {
		if _, err := parse(q); err != nil {
			t.Errorf("parse(%q): %v", q, err)
		}
	}
}

func TestParseBad(t *testing.T) {
	for _, tc := range []struct {
		q, want string
	}{
		{"", "syntax error at 1:1 of query: expected SELECT, found end of query"},
		{"insert into t values (1)", "syntax error at 1:1 of query: only SELECT queries are supported, found INSERT"},
		{"select from t", "syntax error at 1:8 of query: expected a select item (an expression or *), found keyword FROM"},
		{"select id", "syntax error at 1:10 of query: expected FROM <table>, found end of query"},
		{"select id, from t", "syntax error at 1:12 of query: expected a select item (an expression or *), found keyword FROM"},
		{"select id t2 t3 from t", `syntax error at 1:14 of query: expected "," or FROM, found identifier "t3"`},
		{"select id from", "syntax error at 1:15 of query: expected a table name, found end of query"},
		{"select id from db.t", "syntax error at 1:18 of query: a schema-qualified table name is not supported"},
		{"select id from t x", "syntax error at 1:18 of query: a table alias is not supported"},
		{"select id from t join u", "syntax error at 1:18 of query: a join of several tables is not supported"},
		{"select id from t, u", "syntax error at 1:17 of query: a join of several tables is not supported"},
		{"select id from t group by id", "syntax error at 1:18 of query: GROUP BY / HAVING (aggregation) is not supported"},
		{"select id from t where id > 1 order by id", "syntax error at 1:31 of query: ORDER BY is not supported"},
		{"select id from t limit 1", "syntax error at 1:18 of query: LIMIT / OFFSET is not supported"},
		{"select id from (select 1)", "syntax error at 1:16 of query: a subquery is not supported"},
		{"select distinct id from t", "syntax error at 1:8 of query: SELECT DISTINCT is not supported"},
		{"select count(*) from t", "syntax error at 1:14 of query: aggregate functions such as COUNT(* ...) are not supported"},
		{"select (id from t", `syntax error at 1:12 of query: expected ")", found keyword FROM`},
		{"select id + from t", "syntax error at 1:13 of query: expected an expression, found keyword FROM"},
		{"select 'abc from t", "syntax error at 1:8 of query: string literal is not closed"},
		{"select `abc from t", "syntax error at 1:8 of query: quoted identifier is not closed"},
		{"select id from t where", "syntax error at 1:23 of query: expected an expression, found end of query"},
		{"select id from t where id in ()", "syntax error at 1:31 of query: expected an expression"},
		{"select id from t where id between 1", "syntax error at 1:36 of query: expected AND, found end of query"},
		{"select case when 1 then 2 from t", "syntax error at 1:27 of query: expected WHEN, ELSE or END, found keyword FROM"},
		{"select case end from t", "syntax error at 1:13 of query: expected an expression, found keyword END"},
		{"select cast(a int) from t", `syntax error at 1:15 of query: expected AS, found identifier "int"`},
		{"select cast(a as decimal(x)) from t", "syntax error at 1:26 of query: expected a whole number"},
		{"select id from t where id = 1 )", "syntax error at 1:31 of query: expected an operator or end of query"},
		{"select id from t t2 where 1", "syntax error at 1:18 of query: a table alias is not supported"},
		{"select id from t\nwhere id @ 2", "syntax error at 2:10 of query: unexpected character '@'"},
		{"select 1x from t", "syntax error at 1:9 of query: unexpected 'x' after number 1"},
		{"select /* x from t", "syntax error at 1:8 of query: comment /* is not closed"},
		{"select id from t lateral view explode(a) as", "syntax error at 1:44 of query: expected a column name after AS, found end of query"},
		{"select id from t lateral view foo as x", "syntax error at 1:31 of query: expected a generator function such as EXPLODE(...)"},
		{"select a.f() from t", "syntax error at 1:11 of query: a qualified function name is not supported"},
		{"select a. from t", `syntax error at 1:11 of query: expected a field name after ".", found keyword FROM`},
		{"select id from t where id is 1", "syntax error at 1:30 of query: expected NULL, found number 1"},
		{"select \"\" from t", "syntax error at 1:8 of query: empty quoted identifier"},
		{"select é from t where ü", ""},
	} {
		_, err := parse(tc.q)
		if tc.want == "" {
			if err != nil {
				t.Errorf("parse(%q): unexpected error %v", tc.q, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("parse(%q): no error, want %q", tc.q, tc.want)
			continue
		}
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Errorf("parse(%q): error %T is not a *QueryError", tc.q, err)
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("parse(%q):\n got %q\nwant %q", tc.q, err.Error(), tc.want)
		}
	}
}

func TestParseDepth(t *testing.T) {
	q := "select " + strings.Repeat("(", 500) + "1" + strings.Repeat(")", 500) + " from t"
	if _, err := parse(q); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("deep nesting: %v", err)
	}
	q = "select " + strings.Repeat("- ", 500) + "1 from t"
	if _, err := parse(q); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("deep unary: %v", err)
	}
	q = "select " + strings.Repeat("not ", 500) + "true from t"
	if _, err := parse(q); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("deep not: %v", err)
	}
}

func TestParsePrecedence(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"a + b * c", "(a + (b * c))"},
		{"a * b + c", "((a * b) + c)"},
		{"a - b - c", "((a - b) - c)"},
		{"a || b + c", "(a || (b + c))"},
		{"a = 1 or b = 2 and c = 3", "((a = 1) OR ((b = 2) AND (c = 3)))"},
		{"not a = 1 and b", "((NOT (a = 1)) AND b)"},
		{"-a * b", "((-a) * b)"},
		{"a between 1 and 2 and b", "((a BETWEEN 1 AND 2) AND b)"},
		{"a[0][1]", "a[0][1]"},
	} {
		s, err := parse("select " + tc.q + " from t")
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := shape(s.items[0].expr); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.q, got, tc.want)
		}
	}
}

// shape renders the tree with explicit parentheses.
func shape(n node) string {
	switch x := n.(type) {
	case *binaryNode:
		return "(" + shape(x.l) + " " + x.op + " " + shape(x.r) + ")"
	case *unaryNode:
		if x.op == "NOT" {
			return "(NOT " + shape(x.x) + ")"
		}
		return "(" + x.op + shape(x.x) + ")"
	case *betweenNode:
		return "(" + shape(x.x) + " BETWEEN " + shape(x.lo) + " AND " + shape(x.hi) + ")"
	}
	return render(n)
}

func TestParsePositions(t *testing.T) {
	s, err := parse("select\n  id,\n  näme AS x\nfrom t where\n\tz > 1")
	if err != nil {
		t.Fatal(err)
	}
	if p := s.items[0].expr.pos(); p.Line != 2 || p.Col != 3 {
		t.Errorf("id at %v", p)
	}
	if p := s.items[1].aliasAt; p.Line != 3 || p.Col != 11 {
		t.Errorf("alias at %v", p)
	}
	if p := s.where.pos(); p.Line != 5 || p.Col != 2 {
		t.Errorf("where at %v", p)
	}
	if s.table != "t" || s.tableAt.Line != 4 || s.tableAt.Col != 6 {
		t.Errorf("table %q at %v", s.table, s.tableAt)
	}
}

func TestRender(t *testing.T) {
	for _, tc := range []struct{ q, want string }{
		{"age+1", "age + 1"},
		{"concat(name,'_')", "concat(name, '_')"},
		{"CAST(x as decimal(10,2))", "CAST(x AS decimal (10, 2))"},
		{"case when a>1 then 'x' else 'y' end", "CASE WHEN a > 1 THEN 'x' ELSE 'y' END"},
		{"case a when 1 then 2 end", "CASE a WHEN 1 THEN 2 END"},
		{"a not in (1,2)", "a NOT IN (1, 2)"},
		{"a is not null", "a IS NOT NULL"},
		{"-a", "-a"},
		{"not a", "NOT a"},
		{"(a+b)*c", "(a + b) * c"},
		{"extract(year from d)", "EXTRACT(year FROM d)"},
		{"c_row.c_int", "c_row.c_int"},
		{"`a b`", "`a b`"},
		{"current_date", "current_date"},
		{"a!=b", "a != b"},
		{"x like 'a%' escape '!'", "x LIKE 'a%' ESCAPE '!'"},
		{"date '2024-01-01'", "date '2024-01-01'"},
	} {
		s, err := parse("select " + tc.q + " from t")
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if got := render(s.items[0].expr); got != tc.want {
			t.Errorf("render(%s) = %q, want %q", tc.q, got, tc.want)
		}
	}
}
