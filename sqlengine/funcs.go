package sqlengine

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stactor/stactor/row"
)

// The function library: SeaTunnel's (docs/en/transform-v2/sql-functions.md
// and ZetaSQLFunction), with its result types (ZetaSQLType) and null
// handling. Names are case-insensitive.
//
// Hot, simple functions have vector kernels; the rest run row by row
// through scalarEval, which reads unboxed values (val) from the argument
// columns without allocating.

// fnSpec describes a function: how many arguments it takes and how to
// compile a call (checking argument types and choosing the result type).
type fnSpec struct {
	min, max int // max < 0: any number
	build    func(c *compiler, call *callNode, args []evaluator) (evaluator, error)
}

var functions = map[string]*fnSpec{}

func register(spec *fnSpec, names ...string) {
	for _, n := range names {
		functions[n] = spec
	}
}

// FunctionNames lists the functions the Sql transform knows, sorted.
func FunctionNames() []string {
	out := make([]string, 0, len(functions))
	for n := range functions {
		out = append(out, n)
	}
	udfs.RLock()
	for n := range udfs.m {
		out = append(out, n)
	}
	udfs.RUnlock()
	sort.Strings(out)
	return out
}

func (c *compiler) call(n *callNode) (evaluator, error) {
	name := strings.ToUpper(n.name)
	spec, ok := functions[name]
	if !ok {
		if u, ok := lookupUDF(name); ok {
			spec = u
		} else {
			if isAggregate(name) {
				return nil, errAt(n.at, "aggregate function %s is not supported by the Sql transform", name)
			}
			return nil, errAt(n.at, "unknown function %q", n.name)
		}
	}
	if n.noParens && !timeKeys[name] {
		return nil, errAt(n.at, "unknown function %q", n.name)
	}
	if len(n.args) < spec.min || spec.max >= 0 && len(n.args) > spec.max {
		return nil, errAt(n.at, "function %s takes %s, got %d", name, arity(spec), len(n.args))
	}
	args := make([]evaluator, len(n.args))
	for k, a := range n.args {
		e, err := c.expr(a)
		if err != nil {
			return nil, err
		}
		args[k] = e
	}
	return spec.build(c, n, args)
}

func isAggregate(name string) bool {
	switch name {
	case "COUNT", "SUM", "AVG", "MIN", "MAX", "GROUP_CONCAT", "STDDEV", "VARIANCE":
		return true
	}
	return false
}

func arity(s *fnSpec) string {
	plural := func(n int) string {
		if n == 1 {
			return "1 argument"
		}
		return fmt.Sprintf("%d arguments", n)
	}
	switch {
	case s.max < 0:
		return "at least " + plural(s.min)
	case s.min == s.max:
		return plural(s.min)
	}
	return fmt.Sprintf("%d to %s", s.min, plural(s.max))
}

// Argument classes for checkArgs.
type argClass uint8

const (
	aAny      argClass = iota
	aString            // string
	aNumber            // any numeric type
	aInt               // an integer type (or a whole number of any numeric type, truncated as Java's intValue)
	aDateLike          // date or timestamp
	aTimeLike          // time or timestamp
	aTemporal          // date, time or timestamp
	aStrBytes          // string or bytes
	aArray             // array
	aBool              // boolean
)

func (a argClass) accepts(t *row.Type) bool {
	if t.ID == row.TypeNull {
		return true
	}
	switch a {
	case aString:
		return t.ID == row.TypeString
	case aNumber, aInt:
		return isNumType(t)
	case aDateLike:
		return t.ID == row.TypeDate || t.ID == row.TypeTimestamp
	case aTimeLike:
		return t.ID == row.TypeTime || t.ID == row.TypeTimestamp
	case aTemporal:
		return isTemporal(t)
	case aStrBytes:
		return t.ID == row.TypeString || t.ID == row.TypeBytes
	case aArray:
		return t.ID == row.TypeArray
	case aBool:
		return t.ID == row.TypeBoolean
	}
	return true
}

func (a argClass) String() string {
	switch a {
	case aString:
		return "a string"
	case aNumber:
		return "a number"
	case aInt:
		return "an integer"
	case aDateLike:
		return "a date or timestamp"
	case aTimeLike:
		return "a time or timestamp"
	case aTemporal:
		return "a date, time or timestamp"
	case aStrBytes:
		return "a string or bytes"
	case aArray:
		return "an array"
	case aBool:
		return "a boolean"
	}
	return "a value"
}

// checkArgs checks the arguments against classes (the last class repeats
// for extra arguments) and converts aInt arguments to bigint.
func (c *compiler) checkArgs(call *callNode, args []evaluator, classes ...argClass) error {
	for k, a := range args {
		cl := classes[min(k, len(classes)-1)]
		if t := typeOf(a); !cl.accepts(t) {
			err := errAt(call.args[k].pos(), "function %s: argument %d must be %s, got %s", strings.ToUpper(call.name), k+1, cl, t)
			if t.ID == row.TypeTimestampTZ && cl.accepts(row.Timestamp) {
				// SeaTunnel's date functions take no OffsetDateTime either.
				err.Hint = "CAST(x AS TIMESTAMP) is its wall clock"
			}
			return err
		}
		if cl == aInt && !isIntType(typeOf(a)) {
			conv, err := c.toIntArg(a)
			if err != nil {
				return err
			}
			args[k] = conv
		}
	}
	return nil
}

// toIntArg converts a numeric argument to bigint as Java's intValue()
// does: truncating toward zero.
func (c *compiler) toIntArg(a evaluator) (evaluator, error) {
	t := typeOf(a)
	if isIntType(t) {
		return a, nil
	}
	if isNullType(t) {
		return c.coerce(a, row.BigInt)
	}
	e := &scalarEval{args: []evaluator{a}, strict: true, name: "intValue", fn: func(v []val, o *val) error {
		switch {
		case isFloatType(t):
			o.i = javaD2L(v[0].f)
		default:
			o.i = v[0].d.IntPart()
		}
		return nil
	}}
	e.t, e.src = row.BigInt, a.meta().src
	e.derive(a)
	return c.add(e), nil
}

// scalarFn computes one row: args holds the argument values, the result
// goes to out (set out.null for NULL).
type scalarFn func(args []val, out *val) error

// scalarEval runs a scalarFn for every row.
type scalarEval struct {
	exprBase
	name   string
	args   []evaluator
	fn     scalarFn
	strict bool // a NULL argument makes the result NULL without calling fn
	argv   []val
	cols   []*row.Column
}

func (e *scalarEval) eval(c *evalCtx) (*row.Column, error) {
	n := c.n
	if cap(e.cols) < len(e.args) {
		e.cols = make([]*row.Column, len(e.args))
		e.argv = make([]val, len(e.args))
	}
	cols, argv := e.cols[:len(e.args)], e.argv[:len(e.args)]
	for k, a := range e.args {
		col, err := a.eval(c)
		if err != nil {
			return nil, err
		}
		cols[k] = col
	}
	out := e.out.get(e.t, n)
	var o val
rows:
	for i := 0; i < n; i++ {
		for k, col := range cols {
			readVal(col, i, &argv[k])
			if e.strict && argv[k].null {
				e.out.setNull(out, n, i)
				continue rows
			}
		}
		o = val{}
		if err := e.fn(argv, &o); err != nil {
			return nil, rowFailed(c, e, i, err)
		}
		writeVal(&e.out, out, n, i, &o)
	}
	clear(cols)
	return out, nil
}

// fnOpts says how a scalar function treats NULLs and whether it can fail.
type fnOpts struct {
	lenient  bool // the function sees NULL arguments itself
	fails    bool
	volatile bool
}

// scalar builds a row-at-a-time call.
func (c *compiler) scalar(call *callNode, args []evaluator, t *row.Type, fn scalarFn, o fnOpts) evaluator {
	e := &scalarEval{name: strings.ToUpper(call.name), args: args, fn: fn, strict: !o.lenient}
	e.t, e.src = t, call
	e.fails, e.volatile = o.fails, o.volatile
	e.derive(args...)
	return c.add(e)
}

// constString is the value of a constant string argument.
func constString(e evaluator) (string, bool) {
	k, ok := asConst(e)
	if !ok || k.v.null || typeOf(e).ID != row.TypeString {
		return "", false
	}
	return k.v.s, true
}

func init() {
	registerStringFuncs()
	registerNumericFuncs()
	registerDateTimeFuncs()
	registerSystemFuncs()
}
