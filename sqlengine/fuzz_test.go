package sqlengine

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParse feeds arbitrary queries through the parser, the compiler and
// one batch: nothing may panic, and every plan-time error must be a
// *QueryError placed inside the query.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"select * from fake",
		"select id, concat(name, '_') as name, age+1 as age from fake where id>0",
		"select a.b.c, arr[0], m['k'] from t",
		"select case when age > 21 then 'old' when age > 20 then 'mid' else 'young' end from fake",
		"select cast(price as decimal(10, 2)), cast(name as int) from fake where name like 'J%' escape '!'",
		"select * from fake where age in (1, 2, null) and score between -1 and 1.5e3 or not ok",
		"select extract(year from born), trim(both 'x' from name), dateadd(seen, 1, 'MONTH') from fake",
		"select * from dual lateral view outer explode(split(name, ',')) as name",
		"select regexp_replace(name, '(a+)', '$1'), formatdatetime(seen, 'yyyy-MM-dd HH:mm') from fake",
		"select `id`, \"name\" from fake; -- x\n",
		"select 1/0, age % 0, price / 0 from fake",
		"select coalesce(name, 'x'), nullif(age, 20), ifnull(big, 1) from fake /* c */",
		"select date '2024-01-01', timestamp '2024-01-01 00:00:00', current_date from fake",
		"select id from fake where name <> 'x' and born > '2000-01-01'",
	} {
		f.Add(seed)
	}
	s := people()
	rows := peopleRows()
	f.Fuzz(func(t *testing.T, q string) {
		tr, err := Compile(q, s)
		if err != nil {
			var qe *QueryError
			if !errors.As(err, &qe) {
				t.Fatalf("%q: error %T is not a *QueryError: %v", q, err, err)
			}
			checkPos(t, q, qe.Pos)
			return
		}
		out, err := tr.Process(batchOf(t, s, rows))
		if err != nil {
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("%q: run-time error %T is not an *EvalError: %v", q, err, err)
			}
			return
		}
		if out != nil {
			if len(out.Cols) != len(tr.OutputSchema().Fields) {
				t.Fatalf("%q: %d columns for %d fields", q, len(out.Cols), len(tr.OutputSchema().Fields))
			}
			for j, c := range out.Cols {
				if c.Len() != out.Len() {
					t.Fatalf("%q: column %d has %d values for %d rows", q, j, c.Len(), out.Len())
				}
				if c.Type.Storage() != tr.OutputSchema().Fields[j].Type.Storage() {
					t.Fatalf("%q: column %d is %s, field is %s", q, j, c.Type, tr.OutputSchema().Fields[j].Type)
				}
			}
			render2(out)
		}
	})
}

// checkPos checks that p is a real place in q.
func checkPos(t *testing.T, q string, p Pos) {
	t.Helper()
	if p.Off < 0 || p.Off > len(q) || p.Line < 1 || p.Col < 1 {
		t.Fatalf("%q: bad position %+v", q, p)
	}
	before := q[:p.Off]
	line := strings.Count(before, "\n") + 1
	col := utf8.RuneCountInString(before[strings.LastIndexByte(before, '\n')+1:]) + 1
	if line != p.Line || col != p.Col {
		t.Fatalf("%q: position %+v does not match offset (line %d, col %d)", q, p, line, col)
	}
}

// exprGen writes random expressions over the people table, steered by a
// byte string (so that the fuzzer can explore it).
type exprGen struct {
	data []byte
	i    int
}

func (g *exprGen) pick(n int) int {
	if n <= 0 {
		return 0
	}
	if g.i >= len(g.data) {
		return 0
	}
	b := int(g.data[g.i])
	g.i++
	return b % n
}

var genColumns = []string{"id", "name", "age", "score", "big", "price", "born", "seen", "ok", "NULL"}
var genLiterals = []string{"0", "1", "-1", "2147483647", "3000000000", "1.5", "0.0", "'x'", "''", "'2024-01-31'", "'12:30:00'", "TRUE", "FALSE", "NULL", "DATE '2024-02-29'", "TIMESTAMP '2024-01-01 10:00:00'", "'yyyy-MM-dd'", "'DAY'", "'%a_'", "'[a-z]+'"}
var genOps = []string{"+", "-", "*", "/", "%", "||", "=", "<>", "<", ">=", "AND", "OR"}
var genTypes = []string{"INT", "BIGINT", "DOUBLE", "FLOAT", "STRING", "DECIMAL(10, 2)", "DATE", "TIME", "TIMESTAMP", "BYTES", "BOOLEAN", "BYTE"}

func (g *exprGen) expr(depth int) string {
	if depth <= 0 {
		if g.pick(2) == 0 {
			return genColumns[g.pick(len(genColumns))]
		}
		return genLiterals[g.pick(len(genLiterals))]
	}
	d := depth - 1
	switch g.pick(12) {
	case 0:
		return genColumns[g.pick(len(genColumns))]
	case 1, 11:
		return "(" + g.expr(d) + " " + genOps[g.pick(len(genOps))] + " " + g.expr(d) + ")"
	case 2:
		names := FunctionNames()
		name := names[g.pick(len(names))]
		n := g.pick(3)
		if spec, ok := functions[name]; ok {
			hi := spec.max
			if hi < 0 {
				hi = spec.min + 3
			}
			n = spec.min + g.pick(hi-spec.min+1)
		}
		args := make([]string, n)
		for k := range args {
			args[k] = g.expr(d)
		}
		return name + "(" + strings.Join(args, ", ") + ")"
	case 3:
		return "CASE WHEN " + g.cond(d) + " THEN " + g.expr(d) + " ELSE " + g.expr(d) + " END"
	case 4:
		return "CAST(" + g.expr(d) + " AS " + genTypes[g.pick(len(genTypes))] + ")"
	case 5:
		return "(" + g.expr(d) + " IN (" + g.expr(d) + ", " + g.expr(d) + "))"
	case 6:
		return "(" + g.expr(d) + " BETWEEN " + g.expr(d) + " AND " + g.expr(d) + ")"
	case 7:
		return "(" + g.expr(d) + " LIKE " + g.expr(d) + ")"
	case 8:
		return "(NOT " + g.cond(d) + ")"
	case 9:
		return "((" + g.expr(d) + ") IS NULL)"
	default:
		return "(-" + g.expr(d) + ")"
	}
}

// cond is an expression that is more likely boolean.
func (g *exprGen) cond(depth int) string {
	switch g.pick(4) {
	case 0:
		return g.expr(depth)
	case 1:
		return "ok"
	}
	ops := []string{"=", "<>", "<", ">="}
	return "(" + g.expr(depth) + " " + ops[g.pick(len(ops))] + " " + g.expr(depth) + ")"
}

// checkQuery runs q, failing when it takes more than a few seconds.
func checkQuery(t *testing.T, q string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		checkQueryNow(t, q)
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatalf("%q: still running after 20s", q)
	}
}

func checkQueryNow(t *testing.T, q string) {
	s := people()
	tr, err := Compile(q, s)
	if err != nil {
		var qe *QueryError
		if !errors.As(err, &qe) {
			t.Fatalf("%q: error %T is not a *QueryError: %v", q, err, err)
		}
		checkPos(t, q, qe.Pos)
		return
	}
	for _, rows := range [][][]any{peopleRows(), peopleRows()[4:]} {
		out, err := tr.Process(batchOf(t, s, rows))
		if err != nil {
			var ee *EvalError
			if !errors.As(err, &ee) {
				t.Fatalf("%q: run-time error %T is not an *EvalError: %v", q, err, err)
			}
			continue
		}
		if out != nil {
			for j, c := range out.Cols {
				if c.Len() != out.Len() || c.Type.Storage() != tr.OutputSchema().Fields[j].Type.Storage() {
					t.Fatalf("%q: column %d does not match its field", q, j)
				}
			}
			render2(out)
		}
	}
}

// FuzzExpr checks random well-formed expressions: they compile or fail
// with a positioned error, and run or fail with an EvalError.
func FuzzExpr(f *testing.F) {
	for _, seed := range []string{"\x02\x01\x05", "\x01\x02\x03\x04\x05\x06\x07\x08\x09", "\x03\x00\x01\x02\x03", "\x04\x02\x07\x08"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &exprGen{data: data}
		q := "SELECT " + g.expr(4) + " AS x, " + g.expr(3) + " AS y FROM fake WHERE " + g.cond(3)
		checkQuery(t, q)
	})
}

// TestRandomExpressions runs the expression generator over a fixed set of
// pseudo-random inputs.
func TestRandomExpressions(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := newJavaRandom(7)
	for k := 0; k < n; k++ {
		data := make([]byte, 64)
		for i := range data {
			data[i] = byte(r.next(8))
		}
		g := &exprGen{data: data}
		checkQuery(t, "SELECT "+g.expr(4)+" AS x, "+g.expr(2)+" AS y FROM fake WHERE "+g.cond(2))
	}
}

// typed writes random expressions of a kind (i integer, d decimal or
// double, s string, b boolean, t date or timestamp), so that most of them
// compile and reach the evaluators.
func (g *exprGen) typed(kind byte, depth int) string {
	pick := func(xs ...string) string { return xs[g.pick(len(xs))] }
	if depth <= 0 {
		switch kind {
		case 'i':
			return pick("id", "age", "big", "0", "1", "-1", "2147483647", "NULL", "7")
		case 'd':
			return pick("score", "price", "1.5", "0.0", "-2.25", "NULL")
		case 's':
			return pick("name", "'x'", "''", "'Joy,Dom'", "'2024-01-31'", "NULL", "'%o%'")
		case 'b':
			return pick("ok", "TRUE", "FALSE", "NULL")
		}
		return pick("born", "seen", "DATE '2024-02-29'", "TIMESTAMP '2020-01-01 10:00:00'", "NULL")
	}
	d := depth - 1
	i, s, b, t, x := func() string { return g.typed('i', d) }, func() string { return g.typed('s', d) },
		func() string { return g.typed('b', d) }, func() string { return g.typed('t', d) }, func() string { return g.typed('d', d) }
	anyKind := func() string { return g.typed("idsbt"[g.pick(5)], d) }
	caseOf := func(k byte) string {
		return "CASE WHEN " + b() + " THEN " + g.typed(k, d) + " ELSE " + g.typed(k, d) + " END"
	}
	switch kind {
	case 'i':
		switch g.pick(16) {
		case 0:
			return "(" + i() + " " + pick("+", "-", "*", "/", "%") + " " + i() + ")"
		case 1:
			return "LENGTH(" + s() + ")"
		case 2:
			return "CAST(" + pick(s(), x(), i()) + " AS " + pick("INT", "BIGINT", "BYTE") + ")"
		case 3:
			return caseOf('i')
		case 4:
			return pick("ABS", "SIGN", "CEIL", "FLOOR") + "(" + pick(i(), x()) + ")"
		case 5:
			return "MOD(" + i() + ", " + i() + ")"
		case 6:
			return pick("YEAR", "MONTH", "DAY_OF_WEEK", "WEEK", "QUARTER") + "(" + t() + ")"
		case 7:
			return "DATEDIFF(" + t() + ", " + t() + ", " + pick("'DAY'", "'MONTH'", "'HOUR'", "'YEAR'", "'WEEK'") + ")"
		case 8:
			return "COALESCE(" + i() + ", " + i() + ")"
		case 9:
			return "NULLIF(" + i() + ", " + i() + ")"
		case 10:
			return pick("LOCATE", "INSTR") + "(" + s() + ", " + s() + ")"
		case 11:
			return "ROUND(" + i() + ", " + i() + ")"
		case 12:
			return "(-" + i() + ")"
		case 13:
			return "EXTRACT(" + pick("YEAR", "HOUR", "DAY", "MILLISECOND") + " FROM " + t() + ")"
		case 14:
			return "ARRAY(" + i() + ", " + i() + ")[" + i() + "]"
		}
		return g.typed('i', 0)
	case 'd':
		switch g.pick(10) {
		case 0:
			return "(" + x() + " " + pick("+", "-", "*", "/", "%") + " " + pick(x(), i()) + ")"
		case 1:
			return pick("SQRT", "EXP", "SIN", "ATAN", "TRUNC", "ABS", "LN", "LOG10") + "(" + x() + ")"
		case 2:
			return "POWER(" + x() + ", " + i() + ")"
		case 3:
			return "ROUND(" + x() + ", " + i() + ")"
		case 4:
			return "CAST(" + pick(s(), i(), x()) + " AS " + pick("DOUBLE", "FLOAT", "DECIMAL(10, 2)", "DECIMAL(38, 18)") + ")"
		case 5:
			return caseOf('d')
		case 6:
			return "RAND(" + i() + ")"
		case 7:
			return "COALESCE(" + x() + ", " + pick(i(), x()) + ")"
		}
		return g.typed('d', 0)
	case 's':
		switch g.pick(18) {
		case 0:
			return pick("UPPER", "LOWER", "TRIM", "LTRIM", "SOUNDEX", "RAWTOHEX") + "(" + s() + ")"
		case 1:
			return "CONCAT(" + anyKind() + ", " + anyKind() + ")"
		case 2:
			return "(" + anyKind() + " || " + anyKind() + ")"
		case 3:
			return "SUBSTRING(" + s() + ", " + i() + pick("", ", "+i()) + ")"
		case 4:
			return "REPLACE(" + s() + ", " + s() + ", " + s() + ")"
		case 5:
			return pick("LPAD", "RPAD") + "(" + s() + ", " + pick("3", "0", "-1", i()) + ", " + s() + ")"
		case 6:
			return "CAST(" + anyKind() + " AS STRING)"
		case 7:
			return "FORMATDATETIME(" + t() + ", " + pick("'yyyy-MM-dd'", "'HH:mm'", "'EEE d MMM yy'") + ")"
		case 8:
			return "REGEXP_REPLACE(" + s() + ", " + pick("'[a-z]'", "'(o)'", "'x*'") + ", " + pick("'$1'", "'-'", "''") + ")"
		case 9:
			return "SPLIT(" + s() + ", ',')[" + i() + "]"
		case 10:
			return caseOf('s')
		case 11:
			return pick("LEFT", "RIGHT", "REPEAT") + "(" + s() + ", " + pick("2", "0", i()) + ")"
		case 12:
			return "TO_CHAR(" + pick(i(), x(), b()) + ")"
		case 13:
			return "CONCAT_WS(" + s() + ", " + s() + ", " + anyKind() + ")"
		case 14:
			return "TRANSLATE(" + s() + ", " + s() + ", " + s() + ")"
		case 15:
			return "INSERT(" + s() + ", " + i() + ", " + i() + ", " + s() + ")"
		case 16:
			return "REGEXP_SUBSTR(" + s() + ", '[a-z]+'" + pick("", ", 1, "+i()+", NULL, 0") + ")"
		}
		return g.typed('s', 0)
	case 'b':
		switch g.pick(14) {
		case 0:
			return "(" + i() + " " + pick("=", "<>", "<", ">=") + " " + pick(i(), x()) + ")"
		case 1:
			return "(" + s() + " " + pick("=", "!=", ">") + " " + s() + ")"
		case 2:
			return "(" + s() + pick(" LIKE ", " NOT LIKE ") + s() + ")"
		case 3:
			return "(" + i() + pick(" IN (", " NOT IN (") + i() + ", " + i() + "))"
		case 4:
			return "(" + i() + pick(" BETWEEN ", " NOT BETWEEN ") + i() + " AND " + i() + ")"
		case 5:
			return "(" + b() + pick(" AND ", " OR ") + b() + ")"
		case 6:
			return "(NOT " + b() + ")"
		case 7:
			return "(" + anyKind() + pick(" IS NULL", " IS NOT NULL") + ")"
		case 8:
			return "REGEXP_LIKE(" + s() + ", " + pick("'o'", "'^J'", "'[0-9]'") + ")"
		case 9:
			return "(" + t() + " " + pick("<", "=", ">=") + " " + pick(t(), "'2000-01-01'") + ")"
		case 10:
			return caseOf('b')
		case 11:
			return "IS_DATE(" + s() + ", 'yyyy-MM-dd')"
		case 12:
			return "(" + x() + " " + pick("<", "=") + " " + pick(x(), i()) + ")"
		}
		return g.typed('b', 0)
	}
	switch g.pick(8) {
	case 0:
		return "DATEADD(" + t() + ", " + i() + ", " + pick("'MONTH'", "'DAY'", "'HOUR'", "'YEAR'", "'MILLISECOND'") + ")"
	case 1:
		return "DATE_TRUNC(" + t() + ", " + pick("'DAY'", "'MONTH'", "'HOUR'") + ")"
	case 2:
		return "CAST(" + pick(s(), t(), "20240131") + " AS " + pick("DATE", "TIMESTAMP") + ")"
	case 3:
		return caseOf('t')
	case 4:
		return "PARSEDATETIME(" + s() + ", 'yyyy-MM-dd')"
	}
	return g.typed('t', 0)
}

// FuzzTyped checks random mostly well-typed queries.
func FuzzTyped(f *testing.F) {
	for _, seed := range []string{"\x01\x02\x03", "\x05\x04\x03\x02\x01\x00", "\x07\x07\x07\x07\x07\x07\x07"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &exprGen{data: data}
		k := "idsbt"[g.pick(5)]
		checkQuery(t, "SELECT "+g.typed(k, 4)+" AS x, "+g.typed("idsbt"[g.pick(5)], 3)+" AS y FROM fake WHERE "+g.typed('b', 3))
	})
}

func TestRandomTyped(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	r := newJavaRandom(11)
	for k := 0; k < n; k++ {
		data := make([]byte, 96)
		for i := range data {
			data[i] = byte(r.next(8))
		}
		g := &exprGen{data: data}
		kind := "idsbt"[g.pick(5)]
		checkQuery(t, "SELECT "+g.typed(kind, 4)+" AS x, "+g.typed("idsbt"[g.pick(5)], 3)+" AS y FROM fake WHERE "+g.typed('b', 3))
	}
}
