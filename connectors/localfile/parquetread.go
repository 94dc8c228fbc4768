package localfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/google/uuid"
	"github.com/parquet-go/parquet-go"
	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// openParquet opens a parquet file and plans its top-level fields.
func openParquet(path string) (*os.File, *parquet.File, []*pnode, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: not a parquet file: %w", path, err)
	}
	nodes, err := planNodes(pf.Schema())
	if err != nil {
		f.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, pf, nodes, nil
}

// parquetSchemaOf reads the row fields of a parquet file's schema.
func parquetSchemaOf(path string) ([]row.Field, error) {
	f, _, nodes, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fields := make([]row.Field, len(nodes))
	for i, n := range nodes {
		fields[i] = row.Field{Name: n.name, Type: n.typ, Nullable: true}
	}
	return fields, nil
}

// parquetIn reads the rows of one parquet file from a row index on.
type parquetIn struct {
	path   string
	f      *os.File
	groups []parquet.RowGroup
	starts []int64
	g      int
	rows   parquet.Rows
	buf    []parquet.Row
	// out[j] is the top-level node read into output column j.
	out []*pnode
	// assembly cursors: the values of the current row per column.
	vals [][]parquet.Value
	pos  []int
}

// openParquetIn opens path at row index at; want are the output data
// fields, found by name (case-insensitively) among the file's columns.
func openParquetIn(path string, want []row.Field, at int64) (*parquetIn, error) {
	f, pf, nodes, err := openParquet(path)
	if err != nil {
		return nil, err
	}
	p := &parquetIn{path: path, f: f, groups: pf.RowGroups()}
	ncols := 0
	for _, n := range nodes {
		ncols += len(n.leaves)
	}
	p.vals, p.pos = make([][]parquet.Value, ncols), make([]int, ncols)
	for _, w := range want {
		var found *pnode
		for _, n := range nodes {
			if strings.EqualFold(n.name, w.Name) {
				found = n
				break
			}
		}
		if found == nil {
			f.Close()
			return nil, fmt.Errorf("%s: has no column %q", path, w.Name)
		}
		p.out = append(p.out, found)
	}
	var start int64
	for _, g := range p.groups {
		p.starts = append(p.starts, start)
		start += g.NumRows()
	}
	p.g = len(p.groups)
	for i, s := range p.starts {
		if at < s+p.groups[i].NumRows() {
			p.g = i
			break
		}
	}
	if p.g < len(p.groups) {
		p.rows = p.groups[p.g].Rows()
		if err := p.rows.SeekToRow(at - p.starts[p.g]); err != nil {
			p.close()
			return nil, fmt.Errorf("%s: seek to row %d: %w", path, at, err)
		}
	}
	return p, nil
}

func (p *parquetIn) close() error {
	if p.rows != nil {
		p.rows.Close()
		p.rows = nil
	}
	return p.f.Close()
}

// read appends up to n rows to cols (the output data columns) and tells
// how many, and whether the file is done.
func (p *parquetIn) read(cols []*row.Column, n int) (int, bool, error) {
	if cap(p.buf) < n {
		p.buf = make([]parquet.Row, n)
	}
	got := 0
	for got < n {
		if p.rows == nil {
			return got, true, nil
		}
		k, err := p.rows.ReadRows(p.buf[:n-got])
		for _, r := range p.buf[:k] {
			if err := p.appendRow(cols, r); err != nil {
				return got, false, err
			}
			got++
		}
		if errors.Is(err, io.EOF) || (err == nil && k == 0) {
			p.rows.Close()
			p.rows = nil
			if p.g++; p.g < len(p.groups) {
				p.rows = p.groups[p.g].Rows()
			}
			continue
		}
		if err != nil {
			return got, false, fmt.Errorf("%s: %w", p.path, err)
		}
	}
	return got, p.rows == nil, nil
}

func (p *parquetIn) appendRow(cols []*row.Column, r parquet.Row) error {
	clear(p.vals)
	r.Range(func(ci int, vs []parquet.Value) bool {
		if ci < len(p.vals) {
			p.vals[ci], p.pos[ci] = vs, 0
		}
		return true
	})
	for j, n := range p.out {
		c := cols[j]
		if n.kind == pLeaf {
			vs := p.vals[n.col]
			if len(vs) == 0 {
				c.AppendNull()
				continue
			}
			if err := appendLeaf(c, n, vs[0]); err != nil {
				return fmt.Errorf("column %s: %w", n.name, err)
			}
			continue
		}
		v, err := p.assemble(n)
		if err != nil {
			return fmt.Errorf("column %s: %w", n.name, err)
		}
		if err := c.AppendValue(v); err != nil {
			return fmt.Errorf("column %s: %w", n.name, err)
		}
	}
	return nil
}

func (p *parquetIn) peek(col int) (parquet.Value, bool) {
	if p.pos[col] >= len(p.vals[col]) {
		return parquet.Value{}, false
	}
	return p.vals[col][p.pos[col]], true
}

func (p *parquetIn) skip(n *pnode) {
	for _, c := range n.leaves {
		p.pos[c]++
	}
}

// assemble rebuilds the boxed value of node n from the columns' levels.
func (p *parquetIn) assemble(n *pnode) (any, error) {
	first, ok := p.peek(n.leaves[0])
	if !ok {
		return nil, fmt.Errorf("%s: missing values", n.name)
	}
	if first.DefinitionLevel() < n.def {
		p.skip(n)
		return nil, nil
	}
	switch n.kind {
	case pLeaf:
		p.pos[n.col]++
		return leafBoxed(n, first)
	case pGroup:
		out := make([]any, len(n.children))
		for i, c := range n.children {
			v, err := p.assemble(c)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case pList, pMap:
		if first.DefinitionLevel() < n.rdef {
			p.skip(n)
			if n.kind == pMap {
				return &row.MapValue{}, nil
			}
			return []any{}, nil
		}
		var elems []any
		m := &row.MapValue{}
		for {
			if n.kind == pList {
				v, err := p.assemble(n.children[0])
				if err != nil {
					return nil, err
				}
				elems = append(elems, v)
			} else {
				k, err := p.assemble(n.children[0])
				if err != nil {
					return nil, err
				}
				v, err := p.assemble(n.children[1])
				if err != nil {
					return nil, err
				}
				m.Keys = append(m.Keys, k)
				m.Values = append(m.Values, v)
			}
			next, ok := p.peek(n.leaves[0])
			if !ok || next.RepetitionLevel() < n.rrep {
				break
			}
		}
		if n.kind == pMap {
			return m, nil
		}
		return elems, nil
	}
	return nil, fmt.Errorf("%s: unknown node", n.name)
}

// appendLeaf appends a leaf value to c, converting when c's type is not the
// file's (a schema option asked for another type).
func appendLeaf(c *row.Column, n *pnode, v parquet.Value) error {
	if v.IsNull() || v.DefinitionLevel() < n.def || n.conv == cNull {
		c.AppendNull()
		return nil
	}
	if !n.typ.Equal(c.Type) {
		b, err := leafBoxed(n, v)
		if err != nil {
			return err
		}
		return c.AppendValue(b)
	}
	switch n.conv {
	case cBool:
		c.AppendBool(v.Boolean())
	case cInt32, cDate:
		c.AppendInt(int64(v.Int32()))
	case cUint32:
		c.AppendInt(int64(uint32(v.Int32())))
	case cInt64, cUint64:
		c.AppendInt(v.Int64())
	case cFloat:
		c.AppendFloat(float64(v.Float()))
	case cDouble:
		c.AppendFloat(v.Double())
	case cString:
		c.AppendString(string(v.ByteArray()))
	case cUUID:
		u, err := uuid.FromBytes(v.ByteArray())
		if err != nil {
			return err
		}
		c.AppendString(u.String())
	case cBytes:
		c.AppendBytes(append([]byte(nil), v.ByteArray()...))
	case cTimeMillis:
		c.AppendInt(int64(v.Int32()) * 1e6)
	case cTimeMicros:
		c.AppendInt(v.Int64() * 1e3)
	case cTimeNanos:
		c.AppendInt(v.Int64())
	case cTsNanos:
		c.AppendTimestamp(row.TimestampFromNanos(v.Int64()))
	case cTsMillis:
		ms := v.Int64()
		c.AppendTimestamp(row.FloorDiv(ms, 1e3), int32(row.FloorMod(ms, 1e3)*1e6))
	case cTsMicros:
		us := v.Int64()
		c.AppendTimestamp(row.FloorDiv(us, 1e6), int32(row.FloorMod(us, 1e6)*1e3))
	case cInt96:
		x := v.Int96()
		c.AppendTimestamp(int96Timestamp(x[0], x[1], x[2]))
	case cDecInt32:
		c.AppendDecimal(decimal.New(int64(v.Int32()), int32(-n.scale)))
	case cDecInt64:
		c.AppendDecimal(decimal.New(v.Int64(), int32(-n.scale)))
	case cDecBytes:
		c.AppendDecimal(decimalOf(v.ByteArray(), n.scale))
	default:
		return fmt.Errorf("cannot read parquet values as %s", c.Type)
	}
	return nil
}

// leafBoxed is a leaf value in its boxed form (see row.Value).
func leafBoxed(n *pnode, v parquet.Value) (any, error) {
	c := row.NewColumn(n.typ, 1)
	if err := appendLeaf(c, n, v); err != nil {
		return nil, err
	}
	return c.Value(0), nil
}
