package localfile

import (
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/format"
	"github.com/stactor/stactor/row"
)

// Parquet mapping. Every field is optional; nested types use the standard
// three-level LIST and MAP layouts. Writing follows SeaTunnel's
// ParquetWriteStrategy (tinyint and smallint as INT(8)/INT(16), int as
// INT32, bigint as INT64, decimal(p,s) as FIXED_LEN_BYTE_ARRAY of the bytes
// p needs, date as DATE) except where it loses data: timestamps are
// TIMESTAMP(MICROS, isAdjustedToUTC=false) — a wall clock, as SeaTunnel's
// LocalDateTime, with no zone conversion — times are TIME(MICROS) (SeaTunnel
// cannot write them) and the null type is the NULL logical type.

type pkind uint8

const (
	pLeaf pkind = iota
	pGroup
	pList
	pMap
)

// pnode mirrors one node of a parquet schema with its levels, to shred
// values into columns and assemble them back.
type pnode struct {
	kind     pkind
	name     string
	typ      *row.Type // the row type this node holds (its natural type when read)
	optional bool
	def, rep int // max definition and repetition levels at this node
	// list and map: the levels of the repeated group inside.
	rdef, rrep int
	children   []*pnode // group: fields; list: [element]; map: [key, value]
	col        int      // leaf: column index
	leaves     []int    // every leaf column under this node, in order
	conv       leafConv // leaf: how values are stored
	scale      int      // leaf decimal: scale
	size       int      // leaf fixed-length bytes: length
}

// leafConv says how a leaf's parquet values map to row values.
type leafConv uint8

const (
	cNull leafConv = iota
	cBool
	cInt32
	cInt64
	cUint32
	cUint64
	cFloat
	cDouble
	cString
	cBytes
	cDate
	cTimeMillis
	cTimeMicros
	cTimeNanos
	cTsMillis
	cTsMicros
	cTsNanos
	cInt96
	cDecInt32
	cDecInt64
	cDecBytes
	cUUID
)

// precisionBytes is SeaTunnel's PRECISION_TO_BYTE_COUNT: the bytes a
// decimal of precision p needs as a two's complement integer.
func precisionBytes(p int) int {
	return int(math.Ceil((math.Log(math.Pow(10, float64(p))-1)/math.Log(2) + 1) / 8))
}

// orderedGroup is a parquet group that keeps its fields in the order given
// (parquet.Group sorts them by name), so files keep the schema's order.
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g *orderedGroup) Fields() []parquet.Field { return g.fields }

func (g *orderedGroup) String() string {
	names := make([]string, len(g.fields))
	for i, f := range g.fields {
		names[i] = f.Name()
	}
	return "group{" + strings.Join(names, ", ") + "}"
}

type namedField struct {
	parquet.Node
	name string
}

func (f *namedField) Name() string { return f.name }

// Value is only used by parquet-go's reflection paths, which stactor does
// not take.
func (f *namedField) Value(base reflect.Value) reflect.Value { return reflect.Value{} }

func newOrderedGroup(names []string, nodes []parquet.Node) *orderedGroup {
	g := &orderedGroup{Group: parquet.Group{}}
	for i, n := range nodes {
		g.Group[names[i]] = n
		g.fields = append(g.fields, &namedField{Node: n, name: names[i]})
	}
	return g
}

// parquetNode is the optional parquet node for a row type.
func parquetNode(t *row.Type) (parquet.Node, error) {
	n, err := baseNode(t)
	if err != nil {
		return nil, err
	}
	return parquet.Optional(n), nil
}

// baseNode is the parquet node for a row type, before its repetition.
func baseNode(t *row.Type) (parquet.Node, error) {
	var n parquet.Node
	switch t.ID {
	case row.TypeNull:
		n = parquet.Leaf(parquet.NullType)
	case row.TypeString:
		n = parquet.String()
	case row.TypeBoolean:
		n = parquet.Leaf(parquet.BooleanType)
	case row.TypeTinyInt:
		n = parquet.Int(8)
	case row.TypeSmallInt:
		n = parquet.Int(16)
	case row.TypeInt:
		n = parquet.Leaf(parquet.Int32Type)
	case row.TypeBigInt:
		n = parquet.Leaf(parquet.Int64Type)
	case row.TypeFloat:
		n = parquet.Leaf(parquet.FloatType)
	case row.TypeDouble:
		n = parquet.Leaf(parquet.DoubleType)
	case row.TypeDecimal:
		n = parquet.Decimal(t.Scale, t.Precision, parquet.FixedLenByteArrayType(precisionBytes(t.Precision)))
	case row.TypeBytes:
		n = parquet.Leaf(parquet.ByteArrayType)
	case row.TypeDate:
		n = parquet.Date()
	case row.TypeTime:
		n = parquet.TimeAdjusted(parquet.Microsecond, false)
	case row.TypeTimestamp:
		n = parquet.TimestampAdjusted(parquet.Microsecond, false)
	case row.TypeTimestampTZ: // the instant, isAdjustedToUTC; read back as a timestamp (see leafType)
		n = parquet.TimestampAdjusted(parquet.Microsecond, true)
	case row.TypeArray:
		e, err := parquetNode(t.Elem)
		if err != nil {
			return nil, err
		}
		n = parquet.List(e)
	case row.TypeMap:
		k, err := baseNode(t.Key) // parquet.Map makes the key required
		if err != nil {
			return nil, err
		}
		v, err := parquetNode(t.Elem)
		if err != nil {
			return nil, err
		}
		n = parquet.Map(k, v)
	case row.TypeRow:
		names := make([]string, len(t.Fields))
		nodes := make([]parquet.Node, len(t.Fields))
		for i, f := range t.Fields {
			c, err := parquetNode(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			names[i], nodes[i] = f.Name, c
		}
		n = newOrderedGroup(names, nodes)
	default:
		return nil, fmt.Errorf("type %s has no parquet mapping", t)
	}
	return n, nil
}

// writeSchema is the parquet schema of a sink's columns.
func writeSchema(fields []row.Field) (*parquet.Schema, error) {
	names := make([]string, len(fields))
	nodes := make([]parquet.Node, len(fields))
	for i, f := range fields {
		n, err := parquetNode(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		// SeaTunnel writes parquet field names in lower case.
		names[i], nodes[i] = strings.ToLower(f.Name), n
	}
	return parquet.NewSchema("SeaTunnelRecord", newOrderedGroup(names, nodes)), nil
}

// planNodes walks a parquet schema and returns the pnode of each top-level
// field, with levels, column indexes and row types.
func planNodes(schema *parquet.Schema) ([]*pnode, error) {
	col := 0
	var out []*pnode
	for _, f := range schema.Fields() {
		n, err := planNode(f, f.Name(), 0, 0, &col, false)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", f.Name(), err)
		}
		out = append(out, n)
	}
	return out, nil
}

func logicalOf(n parquet.Node) *format.LogicalType { return n.Type().LogicalType() }

func convertedOf(n parquet.Node) (deprecated.ConvertedType, bool) {
	ct := n.Type().ConvertedType()
	if ct == nil {
		return 0, false
	}
	return *ct, true
}

func isListNode(n parquet.Node) bool {
	if lt := logicalOf(n); lt != nil {
		if _, ok := lt.Value.(*format.ListType); ok {
			return true
		}
	}
	ct, ok := convertedOf(n)
	return ok && ct == deprecated.List
}

func isMapNode(n parquet.Node) bool {
	if lt := logicalOf(n); lt != nil {
		if _, ok := lt.Value.(*format.MapType); ok {
			return true
		}
	}
	ct, ok := convertedOf(n)
	return ok && (ct == deprecated.Map || ct == deprecated.MapKeyValue)
}

// planNode builds the pnode of n. inRepeated says n's own repetition was
// already counted by the caller (an element that is the repeated node).
func planNode(n parquet.Node, name string, def, rep int, col *int, inRepeated bool) (*pnode, error) {
	p := &pnode{name: name}
	if !inRepeated {
		switch {
		case n.Optional():
			def++
			p.optional = true
		case n.Repeated():
			// A repeated field outside LIST is a list of itself (legacy
			// two-level lists).
			l := &pnode{kind: pList, name: name, def: def, rep: rep, rdef: def + 1, rrep: rep + 1}
			e, err := planNode(n, name, def+1, rep+1, col, true)
			if err != nil {
				return nil, err
			}
			l.children = []*pnode{e}
			l.typ = row.ArrayOf(e.typ)
			l.leaves = e.leaves
			return l, nil
		}
	}
	p.def, p.rep = def, rep
	switch {
	case n.Leaf():
		p.kind = pLeaf
		p.col = *col
		*col++
		p.leaves = []int{p.col}
		if err := leafType(p, n); err != nil {
			return nil, err
		}
		return p, nil
	case isListNode(n) && len(n.Fields()) == 1 && n.Fields()[0].Repeated():
		p.kind = pList
		r := n.Fields()[0]
		p.rdef, p.rrep = def+1, rep+1
		var e *pnode
		var err error
		if r.Leaf() || len(r.Fields()) != 1 || r.Name() == "array" || strings.HasSuffix(r.Name(), "_tuple") {
			e, err = planNode(r, "element", def+1, rep+1, col, true)
		} else {
			e, err = planNode(r.Fields()[0], r.Fields()[0].Name(), def+1, rep+1, col, false)
		}
		if err != nil {
			return nil, err
		}
		p.children = []*pnode{e}
		p.typ = row.ArrayOf(e.typ)
		p.leaves = e.leaves
		return p, nil
	case isMapNode(n) && len(n.Fields()) == 1 && n.Fields()[0].Repeated() && len(n.Fields()[0].Fields()) == 2:
		p.kind = pMap
		kv := n.Fields()[0]
		p.rdef, p.rrep = def+1, rep+1
		var kn, vn parquet.Field
		for _, f := range kv.Fields() {
			if f.Name() == "key" || (kn == nil && f.Name() != "value") {
				kn = f
			} else {
				vn = f
			}
		}
		if kn == nil || vn == nil {
			return nil, fmt.Errorf("map %s has no key and value", name)
		}
		k, err := planNode(kn, "key", def+1, rep+1, col, false)
		if err != nil {
			return nil, err
		}
		v, err := planNode(vn, "value", def+1, rep+1, col, false)
		if err != nil {
			return nil, err
		}
		p.children = []*pnode{k, v}
		p.typ = row.MapOf(k.typ, v.typ)
		p.leaves = append(append([]int(nil), k.leaves...), v.leaves...)
		return p, nil
	}
	p.kind = pGroup
	var fields []row.Field
	for _, f := range n.Fields() {
		c, err := planNode(f, f.Name(), def, rep, col, false)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name(), err)
		}
		p.children = append(p.children, c)
		p.leaves = append(p.leaves, c.leaves...)
		fields = append(fields, row.Field{Name: f.Name(), Type: c.typ, Nullable: true})
	}
	if len(fields) == 0 {
		return nil, fmt.Errorf("group %s has no fields", name)
	}
	p.typ = row.RowOf(fields...)
	return p, nil
}

// leafType sets a leaf's row type and conversion from its parquet type.
// A TIMESTAMP is a timestamp whether or not it is adjusted to UTC: an
// instant (what a timestamp_tz is written as) reads as its wall clock in
// UTC, as SeaTunnel's ParquetReadStrategy makes every timestamp a
// LocalDateTime.
func leafType(p *pnode, n parquet.Node) error {
	t := n.Type()
	lt := t.LogicalType()
	ct, hasCT := convertedOf(n)
	var v format.LogicalTypeValue
	if lt != nil {
		v = lt.Value
	}
	set := func(rt *row.Type, c leafConv) error { p.typ, p.conv = rt, c; return nil }
	if d, ok := v.(*format.DecimalType); ok {
		p.scale, p.size = int(d.Scale), t.Length()
		prec := int(d.Precision)
		if prec < 1 || prec > 38 || p.scale < 0 || p.scale > prec {
			return fmt.Errorf("decimal(%d, %d) is out of range", prec, p.scale)
		}
		switch t.Kind() {
		case parquet.Int32:
			return set(row.DecimalOf(prec, p.scale), cDecInt32)
		case parquet.Int64:
			return set(row.DecimalOf(prec, p.scale), cDecInt64)
		default:
			return set(row.DecimalOf(prec, p.scale), cDecBytes)
		}
	}
	if _, ok := v.(*format.NullType); ok {
		return set(row.Null, cNull)
	}
	switch t.Kind() {
	case parquet.Boolean:
		return set(row.Boolean, cBool)
	case parquet.Int32:
		switch x := v.(type) {
		case *format.DateType:
			return set(row.Date, cDate)
		case *format.TimeType:
			return set(row.Time, cTimeMillis)
		case *format.IntType:
			switch {
			case x.IsSigned && x.BitWidth == 8:
				return set(row.TinyInt, cInt32)
			case x.IsSigned && x.BitWidth == 16:
				return set(row.SmallInt, cInt32)
			case x.IsSigned:
				return set(row.Int, cInt32)
			case x.BitWidth == 8:
				return set(row.SmallInt, cUint32)
			case x.BitWidth == 16:
				return set(row.Int, cUint32)
			}
			return set(row.BigInt, cUint32)
		}
		if hasCT && ct == deprecated.TimeMillis {
			return set(row.Time, cTimeMillis)
		}
		return set(row.Int, cInt32)
	case parquet.Int64:
		switch x := v.(type) {
		case *format.TimestampType:
			switch x.Unit.Value.(type) {
			case *format.MilliSeconds:
				return set(row.Timestamp, cTsMillis)
			case *format.NanoSeconds:
				return set(row.Timestamp, cTsNanos)
			}
			return set(row.Timestamp, cTsMicros)
		case *format.TimeType:
			if _, ok := x.Unit.Value.(*format.NanoSeconds); ok {
				return set(row.Time, cTimeNanos)
			}
			return set(row.Time, cTimeMicros)
		case *format.IntType:
			if !x.IsSigned {
				return set(row.BigInt, cUint64)
			}
		}
		if hasCT {
			switch ct {
			case deprecated.TimestampMillis:
				return set(row.Timestamp, cTsMillis)
			case deprecated.TimestampMicros:
				return set(row.Timestamp, cTsMicros)
			case deprecated.TimeMicros:
				return set(row.Time, cTimeMicros)
			}
		}
		return set(row.BigInt, cInt64)
	case parquet.Int96:
		return set(row.Timestamp, cInt96)
	case parquet.Float:
		return set(row.Float, cFloat)
	case parquet.Double:
		return set(row.Double, cDouble)
	case parquet.ByteArray, parquet.FixedLenByteArray:
		p.size = t.Length()
		switch v.(type) {
		case *format.StringType, *format.EnumType, *format.JsonType:
			return set(row.String, cString)
		case *format.UUIDType:
			return set(row.String, cUUID)
		}
		if hasCT && (ct == deprecated.UTF8 || ct == deprecated.Enum || ct == deprecated.Json) {
			return set(row.String, cString)
		}
		return set(row.Bytes, cBytes)
	}
	return fmt.Errorf("parquet type %s is not supported", t)
}
