package sqlengine

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/row"
)

// QueryError is a mistake in the query found at plan time, placed at a
// position inside the query text.
type QueryError struct {
	Pos    Pos
	Msg    string
	Hint   string // shown in parentheses after the position, e.g. the known columns
	Syntax bool
}

func (e *QueryError) Error() string {
	if e.Syntax {
		return fmt.Sprintf("syntax error at %s of query: %s", e.Pos, e.Msg)
	}
	s := fmt.Sprintf("%s at %s of query", e.Msg, e.Pos)
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

func syntaxErr(p Pos, msg string) *QueryError { return &QueryError{Pos: p, Msg: msg, Syntax: true} }

func errAt(p Pos, format string, args ...any) *QueryError {
	return &QueryError{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// EvalError is a failure while evaluating an expression for one row, such
// as an integer division by zero or a CAST of a value that does not fit.
// SeaTunnel fails the job on these (its functions throw), and so does
// stactor: the error names the expression, its place in the query and the
// row.
type EvalError struct {
	Expr string // the expression as written in SeaTunnel's rendering
	Pos  Pos
	Row  string // the input row, as name=value pairs
	Err  error
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("Sql: evaluating %s (at %s of query) for row {%s}: %v", e.Expr, e.Pos, e.Row, e.Err)
}

func (e *EvalError) Unwrap() error { return e.Err }

// rowError is what a kernel reports: which row of the input batch failed
// and why. The transform turns it into an EvalError.
type rowError struct {
	node evaluator
	row  int
	err  error
}

func (e *rowError) Error() string { return e.err.Error() }

// failRow is the error of row i of context c in node.
func failRow(c *evalCtx, node evaluator, i int, format string, args ...any) error {
	return &rowError{node: node, row: c.inputRow(i), err: fmt.Errorf(format, args...)}
}

// rowFailed wraps a function's error for row i of context c.
func rowFailed(c *evalCtx, node evaluator, i int, err error) error {
	return &rowError{node: node, row: c.inputRow(i), err: err}
}

// describeRow renders row i of b as name=value pairs for error messages.
func describeRow(b *row.Batch, i int) string {
	if b == nil || i < 0 || i >= b.Len() {
		return "?"
	}
	var s strings.Builder
	for j, f := range b.Schema.Fields {
		if j > 0 {
			s.WriteString(", ")
		}
		v := b.Cols[j].Value(i)
		txt := row.Text(f.Type, v)
		if len(txt) > 60 {
			txt = txt[:57] + "..."
		}
		s.WriteString(f.Name + "=" + txt)
	}
	return s.String()
}
