package assert

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors/fake/literal"
	"github.com/stactor/stactor/row"
)

// catalogRule is SeaTunnel's AssertCatalogTableRule, checked at plan time
// against the input table's schema.
//
// stactor's row.Schema carries fields (name, type, nullable, comment),
// primary key columns and constraint keys, but no primary key name, column
// lengths, default values or catalog name. Rules on those are parsed and
// checked where the schema can answer: a primary key name and a catalog
// name are not compared.
type catalogRule struct {
	at         *hocon.Value
	pk         *pkRule
	constraint *hocon.Value // constraint_key_rule
	keys       []row.ConstraintKey
	columns    []columnRule
	columnsAt  *hocon.Value
	tableID    *tableIDRule
}

type pkRule struct {
	at      *hocon.Value
	name    string
	columns []string
}

// columnRule is one column of column_rule. nullable and comment are
// compared only when the rule sets them: stactor schemas built by code
// (rather than read from a schema block) do not always say.
type columnRule struct {
	name     string
	typ      *row.Type
	nullable *bool
	comment  *string
}

type tableIDRule struct {
	at      *hocon.Value
	catalog string
	table   string
}

func (p *parser) catalogRule(v *hocon.Value, key string) (*catalogRule, error) {
	if v.Kind != hocon.Object {
		return nil, p.errAt(v, key, "expected { primary_key_rule = ..., column_rule = [...] }")
	}
	c := &catalogRule{at: v}
	str := func(o *hocon.Value, k, key string) (string, error) {
		x := o.Get(k)
		if x == nil || x.Kind == hocon.Object || x.Kind == hocon.Array {
			return "", p.errAt(o, key+"."+k, "missing: expected a string")
		}
		return x.String(), nil
	}
	if pk := v.Get("primary_key_rule"); pk != nil {
		k := key + ".primary_key_rule"
		if pk.Kind != hocon.Object {
			return nil, p.errAt(pk, k, "expected { primary_key_name = ..., primary_key_columns = [...] }")
		}
		name, err := str(pk, "primary_key_name", k)
		if err != nil {
			return nil, err
		}
		cols := pk.Get("primary_key_columns")
		if cols == nil || cols.Kind != hocon.Array {
			return nil, p.errAt(pk, k+".primary_key_columns", "missing: expected a list of column names")
		}
		r := &pkRule{at: pk, name: name}
		for _, it := range cols.Items {
			r.columns = append(r.columns, it.String())
		}
		c.pk = r
	}
	if ck := v.Get("constraint_key_rule"); ck != nil {
		k := key + ".constraint_key_rule"
		list, err := p.list(ck, k)
		if err != nil {
			return nil, err
		}
		for i, it := range list {
			ik := fmt.Sprintf("%s[%d]", k, i)
			name, err := str(it, "constraint_key_name", ik)
			if err != nil {
				return nil, err
			}
			typ, err := str(it, "constraint_key_type", ik)
			if err != nil {
				return nil, err
			}
			switch typ {
			case "INDEX_KEY", "UNIQUE_KEY", "FOREIGN_KEY", "VECTOR_INDEX_KEY":
			default:
				return nil, p.errAt(it.Get("constraint_key_type"), ik+".constraint_key_type", "unknown constraint key type %s (want INDEX_KEY or UNIQUE_KEY)", typ)
			}
			cols := it.Get("constraint_key_columns")
			if cols == nil {
				return nil, p.errAt(it, ik+".constraint_key_columns", "missing")
			}
			cl, err := p.list(cols, ik+".constraint_key_columns")
			if err != nil {
				return nil, err
			}
			want := row.ConstraintKey{Name: name, Type: typ}
			for j, col := range cl {
				jk := fmt.Sprintf("%s.constraint_key_columns[%d]", ik, j)
				cn, err := str(col, "constraint_key_column_name", jk)
				if err != nil {
					return nil, err
				}
				// ColumnSortType.valueOf(getString(...)): required, exact.
				st, err := str(col, "constraint_key_sort_type", jk)
				if err != nil {
					return nil, err
				}
				if st != "ASC" && st != "DESC" {
					return nil, p.errAt(col.Get("constraint_key_sort_type"), jk+".constraint_key_sort_type", "expected ASC or DESC, got %s", st)
				}
				want.Columns = append(want.Columns, row.ConstraintColumn{Name: cn, Sort: st})
			}
			c.keys = append(c.keys, want)
		}
		c.constraint = ck
	}
	if cr := v.Get("column_rule"); cr != nil {
		k := key + ".column_rule"
		list, err := p.list(cr, k)
		if err != nil {
			return nil, err
		}
		c.columnsAt = cr
		for i, it := range list {
			ik := fmt.Sprintf("%s[%d]", k, i)
			name, err := str(it, "name", ik)
			if err != nil {
				return nil, err
			}
			tv := it.Get("type")
			if tv == nil {
				return nil, p.errAt(it, ik+".type", "missing: expected a type such as int")
			}
			t, err := literal.ParseType(tv)
			if err != nil {
				return nil, p.errAt(tv, ik+".type", "%v", err)
			}
			col := columnRule{name: name, typ: t}
			if n := it.Get("nullable"); n != nil {
				b, ok := n.Bool()
				if !ok {
					return nil, p.errAt(n, ik+".nullable", "expected true or false")
				}
				col.nullable = &b
			}
			if cm := it.Get("comment"); cm != nil {
				s := cm.String()
				col.comment = &s
			}
			c.columns = append(c.columns, col)
		}
	}
	if ti := v.Get("table_identifier_rule"); ti != nil {
		k := key + ".table_identifier_rule"
		if ti.Kind != hocon.Object {
			return nil, p.errAt(ti, k, "expected { catalog_name = ..., table = ... }")
		}
		cat, err := str(ti, "catalog_name", k)
		if err != nil {
			return nil, err
		}
		tbl, err := str(ti, "table", k)
		if err != nil {
			return nil, err
		}
		c.tableID = &tableIDRule{at: ti, catalog: cat, table: tbl}
	}
	return c, nil
}

// check compares the rule with schema, with SeaTunnel's messages.
func (p *parser) checkCatalog(c *catalogRule, s *row.Schema) error {
	const key = "rules.catalog_table_rule"
	if c.pk != nil {
		if len(s.PrimaryKey) == 0 {
			return p.errAt(c.pk.at, key+".primary_key_rule", "table %s: primaryKey is null", s.TableID)
		}
		if len(c.pk.columns) > 0 && !sameSet(c.pk.columns, s.PrimaryKey) {
			return p.errAt(c.pk.at, key+".primary_key_rule", "table %s: primaryKey columns: [%s] is not equal to [%s]",
				s.TableID, strings.Join(s.PrimaryKey, ", "), strings.Join(c.pk.columns, ", "))
		}
	}
	if c.constraint != nil {
		// AssertConstraintKeyRule.checkRule: keys equal as multisets.
		if len(s.ConstraintKeys) == 0 {
			return p.errAt(c.constraint, key+".constraint_key_rule", "table %s: constraintKeys is null", s.TableID)
		}
		actual := make([]string, len(s.ConstraintKeys))
		for i, k := range s.ConstraintKeys {
			actual[i] = k.String()
		}
		want := make([]string, len(c.keys))
		for i, k := range c.keys {
			want[i] = k.String()
		}
		if len(want) > 0 && !sameSet(actual, want) {
			return p.errAt(c.constraint, key+".constraint_key_rule", "table %s: constraintKeys: [%s] is not equal to [%s]",
				s.TableID, strings.Join(actual, ", "), strings.Join(want, ", "))
		}
	}
	if c.columns != nil {
		// render each side with the attributes the rule compares
		actual := make([]string, len(s.Fields))
		want := make([]string, len(c.columns))
		rule := map[string]columnRule{}
		for i, col := range c.columns {
			rule[col.name] = col
			want[i] = describeColumn(col.name, col.typ, col.nullable, col.comment)
		}
		for i, f := range s.Fields {
			col := rule[f.Name]
			var nullable *bool
			var comment *string
			if col.nullable != nil {
				nullable = &f.Nullable
			}
			if col.comment != nil {
				comment = &f.Comment
			}
			actual[i] = describeColumn(f.Name, f.Type, nullable, comment)
		}
		if !sameSet(actual, want) {
			return p.errAt(c.columnsAt, key+".column_rule", "table %s: columns: [%s] is not equal to [%s]",
				s.TableID, strings.Join(actual, ", "), strings.Join(want, ", "))
		}
	}
	if c.tableID != nil && c.tableID.table != s.TableID {
		return p.errAt(c.tableID.at, key+".table_identifier_rule", "tableIdentifier: %s is not equal to %s", s.TableID, c.tableID.table)
	}
	return nil
}

func describeColumn(name string, t *row.Type, nullable *bool, comment *string) string {
	s := name + " " + t.String()
	if nullable != nil && !*nullable {
		s += " not null"
	} else if nullable != nil {
		s += " null"
	}
	if comment != nil {
		s += fmt.Sprintf(" comment %q", *comment)
	}
	return s
}

// sameSet is CollectionUtils.isEqualCollection: equal as multisets.
func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[string]int{}
	for _, x := range a {
		n[x]++
	}
	for _, x := range b {
		n[x]--
		if n[x] < 0 {
			return false
		}
	}
	return true
}
