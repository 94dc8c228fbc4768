package orc

import (
	"fmt"
	"strconv"
	"strings"
)

// Kind is an ORC type's kind (Type.Kind).
type Kind int

// The ORC type kinds.
const (
	KindBoolean          Kind = 0
	KindByte             Kind = 1
	KindShort            Kind = 2
	KindInt              Kind = 3
	KindLong             Kind = 4
	KindFloat            Kind = 5
	KindDouble           Kind = 6
	KindString           Kind = 7
	KindBinary           Kind = 8
	KindTimestamp        Kind = 9
	KindList             Kind = 10
	KindMap              Kind = 11
	KindStruct           Kind = 12
	KindUnion            Kind = 13
	KindDecimal          Kind = 14
	KindDate             Kind = 15
	KindVarchar          Kind = 16
	KindChar             Kind = 17
	KindTimestampInstant Kind = 18
)

var kindNames = [...]string{"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "string", "binary",
	"timestamp", "array", "map", "struct", "uniontype", "decimal", "date", "varchar", "char", "timestamp with local time zone"}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind " + strconv.Itoa(int(k))
}

// Type is a node of a file's schema: the root is a struct of the top-level
// columns. ID is the column id (the node's place in pre-order).
type Type struct {
	ID         int
	Kind       Kind
	Children   []*Type
	FieldNames []string // struct
	Precision  int      // decimal
	Scale      int      // decimal
	MaxLength  int      // varchar, char
}

// String renders the type as ORC's TypeDescription does.
func (t *Type) String() string {
	var b strings.Builder
	t.write(&b)
	return b.String()
}

func (t *Type) write(b *strings.Builder) {
	switch t.Kind {
	case KindDecimal:
		fmt.Fprintf(b, "decimal(%d,%d)", t.Precision, t.Scale)
	case KindVarchar, KindChar:
		fmt.Fprintf(b, "%s(%d)", t.Kind, t.MaxLength)
	case KindList, KindMap, KindUnion:
		b.WriteString(t.Kind.String())
		b.WriteByte('<')
		for i, c := range t.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			c.write(b)
		}
		b.WriteByte('>')
	case KindStruct:
		b.WriteString("struct<")
		for i, c := range t.Children {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(t.FieldNames[i])
			b.WriteByte(':')
			c.write(b)
		}
		b.WriteByte('>')
	default:
		b.WriteString(t.Kind.String())
	}
}

// Struct, List, Map and Primitive build types for a writer's schema;
// NewSchema numbers them.
func Struct(names []string, children ...*Type) *Type {
	return &Type{Kind: KindStruct, FieldNames: names, Children: children}
}

// List is list<elem>.
func List(elem *Type) *Type { return &Type{Kind: KindList, Children: []*Type{elem}} }

// Map is map<key,value>.
func Map(key, value *Type) *Type { return &Type{Kind: KindMap, Children: []*Type{key, value}} }

// Primitive is a type without children.
func Primitive(k Kind) *Type { return &Type{Kind: k} }

// Decimal is decimal(precision, scale).
func Decimal(precision, scale int) *Type {
	return &Type{Kind: KindDecimal, Precision: precision, Scale: scale}
}

// clone copies a type tree, so that a node used twice gets two ids.
func (t *Type) clone() *Type {
	c := *t
	c.Children = make([]*Type, len(t.Children))
	for i, ch := range t.Children {
		c.Children[i] = ch.clone()
	}
	return &c
}

// number assigns column ids in pre-order and returns the nodes by id.
func (t *Type) number(all []*Type) []*Type {
	t.ID = len(all)
	all = append(all, t)
	for _, c := range t.Children {
		all = c.number(all)
	}
	return all
}

// buildTypes turns the footer's flattened types into a tree, checking that
// every subtype id points forward (so the tree has no cycle) and that each
// kind has the children it needs.
func buildTypes(msgs []typeMsg) ([]*Type, error) {
	if len(msgs) == 0 {
		return nil, fmt.Errorf("the footer has no types")
	}
	all := make([]*Type, len(msgs))
	for i, m := range msgs {
		all[i] = &Type{ID: i, Kind: m.kind, Precision: int(m.precision), Scale: int(m.scale), MaxLength: int(m.maxLength)}
		if m.kind < 0 || m.kind > KindTimestampInstant {
			return nil, fmt.Errorf("type %d: unknown kind %d", i, m.kind)
		}
	}
	seen := make([]bool, len(msgs))
	for i := len(msgs) - 1; i >= 0; i-- {
		m, t := msgs[i], all[i]
		for _, s := range m.subtypes {
			if int(s) <= i || int(s) >= len(all) || seen[s] {
				return nil, fmt.Errorf("type %d: bad subtype %d", i, s)
			}
			seen[s] = true
			t.Children = append(t.Children, all[s])
		}
		n := len(t.Children)
		switch t.Kind {
		case KindList:
			if n != 1 {
				return nil, fmt.Errorf("type %d: a list has %d subtypes", i, n)
			}
		case KindMap:
			if n != 2 {
				return nil, fmt.Errorf("type %d: a map has %d subtypes", i, n)
			}
		case KindStruct:
			if len(m.fieldNames) != n {
				return nil, fmt.Errorf("type %d: a struct has %d subtypes and %d field names", i, n, len(m.fieldNames))
			}
			t.FieldNames = m.fieldNames
		case KindUnion:
			if n == 0 || n > 256 {
				return nil, fmt.Errorf("type %d: a union has %d subtypes", i, n)
			}
		case KindDecimal:
			if t.Precision > 38 || t.Scale > 38 || (t.Precision > 0 && t.Scale > t.Precision) {
				return nil, fmt.Errorf("type %d: decimal(%d,%d)", i, t.Precision, t.Scale)
			}
			if t.Precision == 0 {
				// files of Hive 0.11 have decimals without precision and
				// scale: ORC's TypeDescription defaults
				t.Precision = 38
				if !m.hasScale {
					t.Scale = 10
				}
			}
		default:
			if n != 0 {
				return nil, fmt.Errorf("type %d: %s has subtypes", i, t.Kind)
			}
		}
	}
	for i := 1; i < len(all); i++ {
		if !seen[i] {
			return nil, fmt.Errorf("type %d is no column's subtype", i)
		}
	}
	return all, nil
}
