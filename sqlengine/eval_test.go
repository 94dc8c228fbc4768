package sqlengine

import (
	"errors"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// evalExpr evaluates "SELECT <expr> AS x FROM fake" over peopleRows and
// returns the values, comma-separated.
func evalExpr(t *testing.T, expr string) (string, error) {
	t.Helper()
	out, _, err := run(t, "SELECT "+expr+" AS x FROM fake", people(), peopleRows())
	return strings.Join(out, ","), err
}

func TestOperators(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		// Arithmetic, with SeaTunnel's result types.
		{"age + 1", "21,22,25,23,null"},
		{"age - big", "10,1,-6,-18,null"},
		{"age * big", "200,420,720,880,null"},
		{"age / 3", "6,7,8,7,null"},
		{"age % 3", "2,0,0,1,null"},
		{"-age % 3", "-2,0,0,-1,null"},
		{"big / 4", "2,5,7,10,null"},
		{"-big / 4", "-2,-5,-7,-10,null"},
		{"big % 8", "2,4,6,0,null"},
		{"-big % 8", "-2,-4,-6,0,null"},
		{"age / id", "20,10,8,5,null"},
		{"-age", "-20,-21,-24,-22,null"},
		{"score * 2", "3.0,4.5,-6.0,0.0,null"},
		{"score / 0", "Infinity,Infinity,-Infinity,NaN,null"},
		{"score % 2", "1.5,0.25,-1.0,0.0,null"},
		{"age + score", "21.5,23.25,21.0,22.0,null"},
		{"2 * score", "3.0,4.5,-6.0,0.0,null"},
		{"10 - score", "8.5,7.75,13.0,10.0,null"},
		{"2147483647 + age", "-2147483629,-2147483628,-2147483625,-2147483627,null"},
		{"big + 9223372036854775807", "-9223372036854775799,-9223372036854775789,-9223372036854775779,-9223372036854775769,null"},
		{"price + 1", "13.50,1.10,-6.05,101.00,null"},
		{"price - price", "0.00,0.00,0.00,0.00,null"},
		{"price / 4", "3.13,0.03,-1.77,25.00,null"},
		{"price % 4", "0.50,0.10,-3.05,0.00,null"},
		{"price * 2", "25.00,0.20,-14.10,200.00,null"},
		{"price + score", "14.00,2.35,-10.05,100.00,null"},
		{"age + null", "null,null,null,null,null"},
		{"1 + 2 * 3", "7,7,7,7,7"},
		{"(1 + 2) * 3", "9,9,9,9,9"},
		{"7 / 2", "3,3,3,3,3"},
		{"7.0 / 2", "3.5,3.5,3.5,3.5,3.5"},
		// Concatenation skips NULLs, as SeaTunnel's CONCAT.
		{"name || '_' || age", "Joy Ding_20,May Ding_21,Kin Dom_24,Joy Dom_22,_"},
		{"score || ok", "1.5true,2.25false,-3.0true,0.0false,"},
		{"born || ' ' || seen", "2000-01-31 2024-01-31T12:30:15,1999-12-31 2023-06-01T00:00,2004-02-29 2020-02-29T23:59:59.500,1970-01-01 1970-01-01T00:00, "},
		// Comparisons: NULL makes them NULL, except <> (IS DISTINCT FROM, as SeaTunnel).
		{"age > 21", "false,false,true,true,null"},
		{"age >= 21", "false,true,true,true,null"},
		{"age < 21", "true,false,false,false,null"},
		{"age <= 21", "true,true,false,false,null"},
		{"age = 21", "false,true,false,false,null"},
		{"21 = age", "false,true,false,false,null"},
		{"21 < age", "false,false,true,true,null"},
		{"age <> 21", "true,false,true,true,true"},
		{"age != 21", "true,false,true,true,true"},
		{"age <> null", "true,true,true,true,false"},
		{"age = null", "null,null,null,null,null"},
		{"age = big / 2 + 15", "true,false,false,false,null"},
		{"name = 'Joy Ding'", "true,false,false,false,null"},
		{"name <> 'Joy Ding'", "false,true,true,true,true"},
		{"name > 'K'", "false,true,true,false,null"},
		{"score >= age", "false,false,false,false,null"},
		{"score < big", "true,true,true,true,null"},
		{"born < DATE '2000-01-01'", "false,true,false,true,null"},
		{"born < '2000-01-01'", "false,true,false,true,null"},
		{"'2000-01-01' > born", "false,true,false,true,null"},
		{"seen > born", "true,true,true,false,null"},
		{"seen >= TIMESTAMP '2020-02-29 23:59:59.5'", "true,true,true,false,null"},
		{"price > 10", "true,false,false,true,null"},
		{"price = 12.5", "true,false,false,false,null"},
		{"price = price", "true,true,true,true,null"},
		{"ok = true", "true,false,true,false,null"},
		{"ok < true", "false,true,false,true,null"},
		// Logic: three-valued.
		{"age > 21 and ok", "false,false,true,false,null"},
		{"age > 21 or ok", "true,false,true,true,null"},
		{"not ok", "false,true,false,true,null"},
		{"not (age > 21)", "true,true,false,false,null"},
		{"ok and null", "null,false,null,false,null"},
		{"ok or null", "true,null,true,null,null"},
		{"null and false", "false,false,false,false,false"},
		{"null or true", "true,true,true,true,true"},
		{"ok is null", "false,false,false,false,true"},
		{"ok is not null", "true,true,true,true,false"},
		{"name is null or age > 21", "false,false,true,true,true"},
		// IN: NULL items are skipped, as SeaTunnel.
		{"id in (1, 3, 5)", "true,false,true,false,true"},
		{"age in (20, 22)", "true,false,false,true,null"},
		{"age not in (20, 22)", "false,true,true,false,null"},
		{"age not in (20, null)", "false,true,true,true,null"},
		{"age in (big, 21)", "false,true,false,false,null"},
		{"age in (big / 2 + 15, 21)", "true,true,false,false,null"},
		{"name in ('Joy Ding', 'x')", "true,false,false,false,null"},
		{"score in (1.5, 0)", "true,false,false,true,null"},
		{"price in (12.5, 100)", "true,false,false,true,null"},
		{"born in ('2000-01-31', '1970-01-01')", "true,false,false,true,null"},
		// BETWEEN.
		{"age between 21 and 22", "false,true,false,true,null"},
		{"age not between 21 and 22", "true,false,true,false,null"},
		{"score between -3 and 1.5", "true,false,true,true,null"},
		// LIKE.
		{"name like 'Joy%'", "true,false,false,true,null"},
		{"name like '%Dom'", "false,false,true,true,null"},
		{"name like '%y D%'", "true,true,false,true,null"},
		{"name like '_ay%'", "false,true,false,false,null"},
		{"name like '%o%D%'", "true,false,false,true,null"},
		{"name like 'Joy Ding'", "true,false,false,false,null"},
		{"name like 'J__ D__'", "false,false,false,true,null"},
		{"name not like 'Joy%'", "false,true,true,false,null"},
		{"name like name", "true,true,true,true,null"},
		{"'50%' like '50!%' escape '!'", "true,true,true,true,true"},
		{"'500' like '50!%' escape '!'", "false,false,false,false,false"},
		{"name like '%'", "true,true,true,true,null"},
		{"name like '%%y%D%g'", "true,true,false,false,null"},
		{"name like 'J%D%m'", "false,false,false,true,null"},
		{"name like 'Joy%Dom%'", "false,false,false,true,null"},
		{"'aXbXc' like 'a%b%c'", "true,true,true,true,true"},
		{"'abc' like 'a%bc%c'", "false,false,false,false,false"},
		{"'a.c' like 'a.c'", "true,true,true,true,true"},
		{"'abc' like 'a.c'", "false,false,false,false,false"},
		{"'héllo' like 'h_llo'", "true,true,true,true,true"},
		{"'hello' like '%l_o'", "true,true,true,true,true"},
		// CASE.
		{"case when age > 21 then 'old' when age > 20 then 'mid' else 'young' end", "young,mid,old,old,young"},
		{"case when age > 21 then 1 else 2.5 end", "2.5,2.5,1.0,1.0,2.5"},
		{"case age when 20 then 'a' when 21 then 'b' end", "a,b,null,null,null"},
		{"case age when age > 21 then 'big' else 'small' end", "small,small,big,big,small"},
		{"case when age > 100 then age / 0 else 0 end", "0,0,0,0,0"},
		{"case when id > 2 then price else 1 end", "1.00,1.00,-7.05,100.00,null"},
		{"case when ok then null else name end", "null,May Ding,null,Joy Dom,null"},
		{"casewhen(ok, 'y', 'n')", "y,n,y,n,n"},
		// Short-circuit: the division runs only where it can.
		{"id < 2 or age / (age - 20) > 0", "true,true,true,true,null"},
		{"age > 20 and 100 / (age - 20) > 10", "false,true,true,true,null"},
	} {
		got, err := evalExpr(t, tc.expr)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.expr, got, tc.want)
		}
	}
}

func TestRuntimeErrors(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{"age / 0", `Sql: evaluating "age / 0" (at 1:8 of query) for row {id=1, name=Joy Ding, age=20, score=1.5, big=10, price=12.50, born=2000-01-31, seen=2024-01-31T12:30:15, ok=true}: division by zero`},
		{"age % (id - 2)", `Sql: evaluating "age % (id - 2)" (at 1:8 of query) for row {id=2,`},
		{"price / (price - price)", `Sql: evaluating "price / (price - price)" (at 1:8 of query) for row {id=1,`},
		{"cast(score as int)", `Sql: evaluating "CAST(score AS int)" (at 1:8 of query) for row {id=1,`},
		{"cast(name as int)", `cannot cast "Joy Ding" to INT: not an integer`},
		{"case when id = 3 then age / 0 end", `for row {id=3,`},
		{"ln(score)", `evaluating "ln(score)" (at 1:8 of query) for row {id=3,`},
	} {
		_, err := evalExpr(t, tc.expr)
		if err == nil {
			t.Errorf("%s: no error", tc.expr)
			continue
		}
		var ee *EvalError
		if !errors.As(err, &ee) {
			t.Errorf("%s: %T is not an *EvalError: %v", tc.expr, err, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.expr, err, tc.want)
		}
	}
}

// TestWhere checks filtering, row kinds and pass-through columns.
func TestWhere(t *testing.T) {
	s := people()
	in := batchOf(t, s, peopleRows(), row.Insert, row.UpdateBefore, row.UpdateAfter, row.Delete, row.Insert)
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"select id from fake where age > 21", []string{"+U 3", "-D 4"}},
		{"select id from fake where not (age > 21)", []string{"1", "-U 2"}},
		{"select id from fake where name <> 'Joy Ding'", []string{"-U 2", "+U 3", "-D 4", "5"}},
		{"select id from fake where age is null", []string{"5"}},
		{"select id from fake where ok", []string{"1", "+U 3"}},
		{"select id from fake where null", nil},
		{"select id from fake where 1 = 1", []string{"1", "-U 2", "+U 3", "-D 4", "5"}},
		{"select id from fake where id > 100", nil},
		{"select id, name from fake where id % 2 = 1 and name like '%Ding'", []string{"1 | Joy Ding"}},
	} {
		tr := mustCompile(t, tc.q, s)
		out, err := tr.Process(in)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		got := render2(out)
		if strings.Join(got, ";") != strings.Join(tc.want, ";") {
			t.Errorf("%s:\n got %q\nwant %q", tc.q, got, tc.want)
		}
	}
}

// TestPassThrough checks that unchanged columns are shared, not copied,
// and that the input batch is left alone.
func TestPassThrough(t *testing.T) {
	s := people()
	in := batchOf(t, s, peopleRows())
	tr := mustCompile(t, "select name, id, age + 1 as a1 from fake", s)
	out, err := tr.Process(in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Cols[0] != in.Cols[1] || out.Cols[1] != in.Cols[0] {
		t.Error("pass-through columns were copied")
	}
	// A second batch must not change the first output (buffers are fresh
	// for output columns).
	first := render2(out)
	in2 := batchOf(t, s, [][]any{{9, "x", 99, 0.0, 0, "0", nil, nil, nil}})
	if _, err := tr.Process(in2); err != nil {
		t.Fatal(err)
	}
	if again := render2(out); strings.Join(again, ";") != strings.Join(first, ";") {
		t.Errorf("output changed after the next batch:\n%q\n%q", first, again)
	}
	// With a filter the selected rows are taken once per column.
	tr = mustCompile(t, "select name, score * 2 as s from fake where id > 2", s)
	out, err = tr.Process(in)
	if err != nil {
		t.Fatal(err)
	}
	first = render2(out)
	if _, err := tr.Process(batchOf(t, s, [][]any{{9, "x", 99, 7.0, 0, "0", nil, nil, nil}})); err != nil {
		t.Fatal(err)
	}
	if again := render2(out); strings.Join(again, ";") != strings.Join(first, ";") {
		t.Errorf("filtered output changed after the next batch:\n%q\n%q", first, again)
	}
	if strings.Join(first, ";") != "Kin Dom | -6.0;Joy Dom | 0.0;null | null" {
		t.Errorf("got %q", first)
	}
}

func TestEmptyAndNil(t *testing.T) {
	tr := mustCompile(t, "select * from fake", people())
	if out, err := tr.Process(nil); out != nil || err != nil {
		t.Errorf("nil batch: %v %v", out, err)
	}
	if out, err := tr.Process(row.NewBatch(people(), nil, nil)); out != nil || err != nil {
		t.Errorf("empty batch: %v %v", out, err)
	}
}
