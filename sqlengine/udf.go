package sqlengine

import (
	"fmt"
	"strings"
	"sync"

	"github.com/stactor/stactor/row"
)

// Function is a user-defined function of the Sql transform, the Go
// counterpart of SeaTunnel's ZetaUDF. Register it from an init function
// of a package linked into the binary.
type Function struct {
	// Name is how queries call it (case-insensitively).
	Name string
	// ResultType gives the result type for the argument types, or an error
	// that rejects the call at plan time.
	ResultType func(args []*row.Type) (*row.Type, error)
	// Eval computes one row from boxed arguments (nil for NULL, otherwise
	// as row.Column.Value boxes them) and returns a boxed result of the
	// result type, or nil. It is called from one goroutine per transform
	// instance; an error fails the row.
	Eval func(args []any) (any, error)
}

var udfs = struct {
	sync.RWMutex // guards m; registration happens in init()
	m            map[string]*fnSpec
}{m: map[string]*fnSpec{}}

// RegisterFunction makes a user-defined function known. Built-in
// functions cannot be replaced.
func RegisterFunction(f Function) error {
	name := strings.ToUpper(f.Name)
	if name == "" || f.ResultType == nil || f.Eval == nil {
		return fmt.Errorf("sqlengine: function %q needs a name, ResultType and Eval", f.Name)
	}
	if _, builtin := functions[name]; builtin {
		return fmt.Errorf("sqlengine: function %s is built in", name)
	}
	udfs.Lock()
	defer udfs.Unlock()
	udfs.m[name] = &fnSpec{min: 0, max: -1, build: func(c *compiler, call *callNode, args []evaluator) (evaluator, error) {
		types := make([]*row.Type, len(args))
		for k, a := range args {
			types[k] = typeOf(a)
		}
		t, err := f.ResultType(types)
		if err != nil {
			return nil, errAt(call.at, "function %s: %v", name, err)
		}
		if t == nil {
			return nil, errAt(call.at, "function %s has no result type for (%v)", name, types)
		}
		boxed := make([]any, len(args))
		return c.scalar(call, args, t, func(a []val, o *val) (err error) {
			for k := range a {
				boxed[k] = boxVal(types[k], &a[k])
			}
			// A panicking function fails the row rather than the process.
			defer func() {
				if p := recover(); p != nil {
					err = fmt.Errorf("function %s panicked: %v", name, p)
				}
			}()
			r, err := f.Eval(boxed)
			if err != nil {
				return err
			}
			if !unboxVal(t, r, o) {
				return fmt.Errorf("function %s returned %v (%T), not a %s", name, r, r, t)
			}
			return nil
		}, fnOpts{lenient: true, fails: true, volatile: true}), nil
	}}
	return nil
}

func lookupUDF(name string) (*fnSpec, bool) {
	udfs.RLock()
	defer udfs.RUnlock()
	s, ok := udfs.m[name]
	return s, ok
}
