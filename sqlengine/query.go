package sqlengine

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stactor/stactor/row"
)

// Query is a compiled query over one input table. It is used by one
// goroutine (a subtask) at a time: its evaluators reuse their buffers from
// batch to batch.
type Query struct {
	prog     *program
	out      *row.Schema
	where    evaluator
	items    []evaluator
	laterals []lateral
	sel      []int
	// wctx and ctx are the contexts of the WHERE and of the select items,
	// reused from batch to batch.
	wctx, ctx evalCtx
}

// Option changes how Compile checks a query.
type Option func(*options)

type options struct {
	tables []string
}

// InputNames adds names the query's FROM may give the input table by,
// besides its table id: the Sql transform's plugin_input names.
func InputNames(names ...string) Option {
	return func(o *options) { o.tables = append(o.tables, names...) }
}

// Compile parses query, checks it against the input schema and compiles
// it. Errors are *QueryError, placed inside the query.
func Compile(query string, input *row.Schema, opts ...Option) (*Query, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	stmt, err := parse(query)
	if err != nil {
		return nil, err
	}
	if err := checkTable(stmt, input, o.tables); err != nil {
		return nil, err
	}
	t := &Query{prog: newProgram()}
	c := &compiler{in: input, prog: t.prog}
	var fields []row.Field
	seen := map[string]Pos{}
	addField := func(f row.Field, at Pos) error {
		if prev, dup := seen[f.Name]; dup {
			return errAt(at, "duplicate output column %q (also at %s); rename one with AS", f.Name, prev)
		}
		seen[f.Name] = at
		fields = append(fields, f)
		return nil
	}
	for _, it := range stmt.items {
		if it.star {
			for j, f := range input.Fields {
				ref := &colRef{idx: j}
				ref.t = f.Type
				ref.src = &identNode{parts: []identPart{{name: f.Name, raw: f.Name, at: it.starAt}}}
				t.items = append(t.items, ref)
				if err := addField(f, it.starAt); err != nil {
					return nil, err
				}
			}
			continue
		}
		e, err := c.expr(it.expr)
		if err != nil {
			return nil, err
		}
		e.meta().out.root = true
		t.items = append(t.items, e)
		f := row.Field{Name: it.alias, Type: typeOf(e), Nullable: true}
		at := it.aliasAt
		if it.alias == "" {
			f.Name, at = itemName(it.expr), it.expr.pos()
		}
		if ref, ok := e.(*colRef); ok {
			in := input.Fields[ref.idx]
			f.Nullable, f.Comment = in.Nullable, in.Comment
		}
		if err := addField(f, at); err != nil {
			return nil, err
		}
	}
	for _, lv := range stmt.laterals {
		l, err := c.lateral(lv, fields, t.items)
		if err != nil {
			return nil, err
		}
		if l.alias == len(fields) {
			if err := addField(row.Field{Name: lv.alias, Type: l.elem, Nullable: true}, lv.aliasAt); err != nil {
				return nil, err
			}
		} else {
			fields[l.alias].Type, fields[l.alias].Nullable = l.elem, true
		}
		t.laterals = append(t.laterals, l)
	}
	if stmt.where != nil {
		w, err := c.condition(stmt.where, "WHERE")
		if err != nil {
			return nil, err
		}
		t.where = w
	}
	for _, e := range t.items {
		if ref, ok := e.(*colRef); ok {
			t.prog.outCols[ref.idx] = true
		}
	}
	schema, err := row.NewSchema(input.TableID, fields...)
	if err != nil {
		return nil, fmt.Errorf("output schema: %w", err)
	}
	schema.PrimaryKey = keptKey(input, schema, t.items)
	t.out = schema
	return t, nil
}

// checkTable refuses a FROM that names another table than the input, as
// SeaTunnel's ZetaSQLEngine did before it only warned: a query written
// for another table would otherwise run over this one unnoticed. The
// input table goes by its table id (or the id's last part, the catalog
// table name), any of names, or dual; case does not matter.
func checkTable(stmt *selectStmt, input *row.Schema, names []string) error {
	id := input.TableID
	known := append([]string{id, id[strings.LastIndexByte(id, '.')+1:], "dual"}, names...)
	for _, n := range known {
		if strings.EqualFold(stmt.table, n) {
			return nil
		}
	}
	known = append([]string{id}, names...)
	if len(names) == 0 {
		known = append(known, "a name in plugin_input")
	}
	return &QueryError{Pos: stmt.tableAt, Msg: fmt.Sprintf("table %q not found", stmt.table), Hint: "the input table is " + strings.Join(known, ", ") + " or dual"}
}

// itemName is SeaTunnel's name for an unaliased select item: a column's
// own name (the last of a dotted path), else the expression as JSqlParser
// prints it, without enclosing backticks.
func itemName(n node) string {
	if id, ok := n.(*identNode); ok {
		return id.parts[len(id.parts)-1].name
	}
	s := render(n)
	if len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
		s = s[1 : len(s)-1]
	}
	return s
}

// keptKey is the input's primary key when every key column passes through
// under its own name.
func keptKey(in, out *row.Schema, items []evaluator) []string {
	if len(in.PrimaryKey) == 0 {
		return nil
	}
	for _, k := range in.PrimaryKey {
		j := out.Index(k)
		if j < 0 || j >= len(items) {
			return nil
		}
		ref, ok := items[j].(*colRef)
		if !ok || in.Fields[ref.idx].Name != k {
			return nil
		}
	}
	return append([]string(nil), in.PrimaryKey...)
}

// OutputSchema is the schema of the batches Process returns.
func (t *Query) OutputSchema() *row.Schema { return t.out }

// BorrowsBatches tells the engine that Process keeps nothing of its input
// past the call except through its output, which holds the input while it
// shares the input's columns (connectors.BatchBorrower): the engine may
// recycle batches through a Sql transform.
func (t *Query) BorrowsBatches() {}

// Process filters and projects one batch. Row kinds and unchanged columns
// pass through; selected rows are taken once, then every select item is
// computed a whole column at a time. The output is a recycled batch
// (row.NewRecycledBatch): it owns the columns computed or taken for it,
// and holds b when it shares b's columns.
func (t *Query) Process(b *row.Batch) (*row.Batch, error) {
	if b == nil || b.Len() == 0 {
		return nil, nil
	}
	n := b.Len()
	var sel []int
	if t.where != nil {
		t.wctx.reset(t.prog, b, nil)
		w, err := t.where.eval(&t.wctx)
		if err != nil {
			return nil, t.evalError(b, err)
		}
		sel = selected(grow(t.sel, n), w.Bools[:n], w.Nulls)
		t.sel = sel
		switch len(sel) {
		case 0:
			return nil, nil
		case n:
			sel = nil
		}
	}
	ctx := &t.ctx
	ctx.reset(t.prog, b, sel)
	kinds := b.Kinds
	if sel != nil && kinds != nil {
		kinds = make([]row.Kind, len(sel))
		for k, i := range sel {
			kinds[k] = b.Kinds[i]
		}
	}
	out := row.NewRecycledBatch(t.out, kinds, ctx.n)
	out.Cols = out.Cols[:len(t.items)] // a lateral view adds its column later
	shares := false
	for k, e := range t.items {
		m := e.meta()
		m.out.last = nil
		col, err := e.eval(ctx)
		if err != nil {
			out.Release()
			return nil, t.evalError(b, err)
		}
		switch {
		case t.prog.scratch[col]:
			col = cloneCol(col, ctx.n)
			out.Own(col)
		case col == m.out.last || slices.Contains(ctx.taken, col):
			out.Own(col)
		case slices.Contains(b.Cols, col):
			shares = true
		}
		// Anything else is an evaluator's constant column, shared and
		// never modified.
		out.Cols[k] = col
	}
	if shares {
		out.Hold(b)
	}
	if len(t.laterals) > 0 {
		exploded, err := t.explode(ctx, out)
		out.Release() // explode copies what it keeps
		if err != nil {
			return nil, t.evalError(b, err)
		}
		return exploded, nil
	}
	return out, nil
}

// selected is the rows whose flag is true and not null, written into sel
// (of len(flags)) without a branch per row: a filter keeping a random half
// of the rows would mispredict every other one.
func selected(sel []int, flags, nulls []bool) []int {
	k := 0
	if nulls == nil {
		for i, ok := range flags {
			sel[k] = i
			k += b2i(ok)
		}
		return sel[:k]
	}
	nulls = nulls[:len(flags)]
	for i, ok := range flags {
		sel[k] = i
		k += b2i(ok && !nulls[i])
	}
	return sel[:k]
}

// b2i is 1 for true; the compiler makes it a flag move, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// evalError names the expression and the input row a run-time error
// comes from.
func (t *Query) evalError(b *row.Batch, err error) error {
	var re *rowError
	if !errors.As(err, &re) {
		return fmt.Errorf("Sql: %w", err)
	}
	m := re.node.meta()
	var expr string
	var at Pos
	if m.src != nil {
		expr, at = render(m.src), m.src.pos()
	}
	if len(expr) > 80 {
		expr = expr[:77] + "..."
	}
	return &EvalError{Expr: quoteExpr(expr), Pos: at, Row: describeRow(b, re.row), Err: re.err}
}

func quoteExpr(s string) string {
	if strings.ContainsRune(s, '"') {
		return "«" + s + "»"
	}
	return `"` + s + `"`
}
