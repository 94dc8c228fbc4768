package assert

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/connectors/fake/literal"
	"github.com/stactor/stactor/row"
)

// ruleType is SeaTunnel's AssertRuleType.
type ruleType int

const (
	ruleNone ruleType = iota // only equals_to
	ruleNull
	ruleNotNull
	ruleMin
	ruleMax
	ruleMinLength
	ruleMaxLength
	ruleMinRow
	ruleMaxRow
)

var ruleNames = map[string]ruleType{
	"NULL": ruleNull, "NOT_NULL": ruleNotNull, "MIN": ruleMin, "MAX": ruleMax,
	"MIN_LENGTH": ruleMinLength, "MAX_LENGTH": ruleMaxLength, "MIN_ROW": ruleMinRow, "MAX_ROW": ruleMaxRow,
}

func (t ruleType) String() string {
	for n, v := range ruleNames {
		if v == t {
			return n
		}
	}
	return "equals_to"
}

// valueRule is one entry of field_value or row_rules.
type valueRule struct {
	typ    ruleType
	value  float64 // rule_value
	equals *hocon.Value
	at     *hocon.Value // the rule, for messages
}

// describe renders the rule for messages: MAX 100, NOT_NULL, equals_to "AAA".
func (r *valueRule) describe() string {
	var parts []string
	if r.typ != ruleNone {
		s := r.typ.String()
		switch r.typ {
		case ruleMin, ruleMax, ruleMinLength, ruleMaxLength, ruleMinRow, ruleMaxRow:
			s += " " + strconv.FormatFloat(r.value, 'f', -1, 64)
		}
		parts = append(parts, s)
	}
	if r.equals != nil {
		eq := r.equals.String()
		if r.equals.Kind == hocon.String {
			eq = strconv.Quote(eq)
		}
		parts = append(parts, "equals_to "+eq)
	}
	return strings.Join(parts, " ")
}

// fieldRule is one entry of field_rules.
type fieldRule struct {
	name      string
	nameAt    *hocon.Value
	fieldType *row.Type // nil: no type check
	typeAt    *hocon.Value
	values    []valueRule
}

// tableRules are the rules of one table (or, without tables_configs, of
// every input table).
type tableRules struct {
	table   string // table_path; "" for the rules of every table
	rows    []valueRule
	fields  []fieldRule
	catalog *catalogRule
}

// ruleSet is the whole rules block.
type ruleSet struct {
	all        *tableRules            // rules without tables_configs
	byTable    map[string]*tableRules // tables_configs, by table_path
	tableNames []string               // table-names; nil when not set
}

// forTable is the rules for a table, nil when none apply to it.
func (rs *ruleSet) forTable(table string) *tableRules {
	if rs.all != nil {
		return rs.all
	}
	return rs.byTable[table]
}

func (rs *ruleSet) empty() bool {
	if rs.tableNames != nil {
		return false
	}
	if rs.all != nil {
		return len(rs.all.rows) == 0 && len(rs.all.fields) == 0 && rs.all.catalog == nil
	}
	return len(rs.byTable) == 0
}

// parser reads the rules block, failing at the first mistake with a
// positioned *config.Error.
type parser struct {
	cfg *config.PluginConfig
}

func (p *parser) errAt(v *hocon.Value, key, format string, args ...any) error {
	return p.cfg.ErrorAt(v, key, format, args...)
}

func (p *parser) parse(rules *hocon.Value) (*ruleSet, error) {
	rs := &ruleSet{}
	if tn := rules.Get("table-names"); tn != nil {
		if tn.Kind != hocon.Array {
			return nil, p.errAt(tn, "rules.table-names", "expected a list of table names")
		}
		rs.tableNames = []string{}
		for _, it := range tn.Items {
			rs.tableNames = append(rs.tableNames, it.String())
		}
	}
	if tc := rules.Get("tables_configs"); tc != nil {
		if tc.Kind != hocon.Array {
			return nil, p.errAt(tc, "rules.tables_configs", "expected a list of { table_path = ..., row_rules = [...], field_rules = [...] }")
		}
		rs.byTable = map[string]*tableRules{}
		for i, entry := range tc.Items {
			key := fmt.Sprintf("rules.tables_configs[%d]", i)
			if entry.Kind != hocon.Object {
				return nil, p.errAt(entry, key, "expected { table_path = ..., ... }")
			}
			tp := entry.Get("table_path")
			if tp == nil || tp.Kind == hocon.Object || tp.Kind == hocon.Array {
				return nil, p.errAt(entry, key+".table_path", "missing: each table's rules name their table_path")
			}
			tr, err := p.table(entry, key)
			if err != nil {
				return nil, err
			}
			tr.table = tp.String()
			if _, dup := rs.byTable[tr.table]; dup {
				return nil, p.errAt(tp, key+".table_path", "table %q has rules twice", tr.table)
			}
			rs.byTable[tr.table] = tr
		}
	} else {
		tr, err := p.table(rules, "rules")
		if err != nil {
			return nil, err
		}
		rs.all = tr
	}
	return rs, nil
}

func (p *parser) table(v *hocon.Value, key string) (*tableRules, error) {
	tr := &tableRules{}
	if rr := v.Get("row_rules"); rr != nil {
		list, err := p.list(rr, key+".row_rules")
		if err != nil {
			return nil, err
		}
		for i, it := range list {
			r, err := p.valueRule(it, fmt.Sprintf("%s.row_rules[%d]", key, i), true)
			if err != nil {
				return nil, err
			}
			tr.rows = append(tr.rows, r)
		}
	}
	if fr := v.Get("field_rules"); fr != nil {
		list, err := p.list(fr, key+".field_rules")
		if err != nil {
			return nil, err
		}
		for i, it := range list {
			f, err := p.fieldRule(it, fmt.Sprintf("%s.field_rules[%d]", key, i))
			if err != nil {
				return nil, err
			}
			tr.fields = append(tr.fields, f)
		}
	}
	if ct := v.Get("catalog_table_rule"); ct != nil {
		c, err := p.catalogRule(ct, key+".catalog_table_rule")
		if err != nil {
			return nil, err
		}
		tr.catalog = c
	}
	return tr, nil
}

// list reads a list of objects; a single object is a list of one.
func (p *parser) list(v *hocon.Value, key string) ([]*hocon.Value, error) {
	items := []*hocon.Value{v}
	if v.Kind == hocon.Array {
		items = v.Items
	}
	for _, it := range items {
		if it.Kind != hocon.Object {
			return nil, p.errAt(it, key, "expected a list of { ... } blocks")
		}
	}
	return items, nil
}

func (p *parser) valueRule(v *hocon.Value, key string, row bool) (valueRule, error) {
	r := valueRule{at: v}
	if rt := v.Get("rule_type"); rt != nil {
		name := strings.ToUpper(strings.TrimSpace(rt.String()))
		t, ok := ruleNames[name]
		if !ok || rt.Kind == hocon.Object || rt.Kind == hocon.Array {
			want := "NULL, NOT_NULL, MIN, MAX, MIN_LENGTH, MAX_LENGTH"
			if row {
				want = "MIN_ROW, MAX_ROW"
			}
			return r, p.errAt(rt, key+".rule_type", "unknown rule type %s (want one of %s)", rt.String(), want)
		}
		r.typ = t
	}
	isRow := r.typ == ruleMinRow || r.typ == ruleMaxRow
	switch {
	case row && !isRow:
		return r, p.errAt(v, key+".rule_type", "row_rules take MIN_ROW or MAX_ROW, not %s", r.typ)
	case !row && isRow:
		return r, p.errAt(v.Get("rule_type"), key+".rule_type", "%s counts rows: put it in row_rules", r.typ)
	}
	switch r.typ {
	case ruleMin, ruleMax, ruleMinLength, ruleMaxLength, ruleMinRow, ruleMaxRow:
		rv := v.Get("rule_value")
		if rv == nil {
			return r, p.errAt(v, key+".rule_value", "missing: %s needs a rule_value", r.typ)
		}
		f, ok := rv.Float()
		if !ok || rv.Kind == hocon.Object || rv.Kind == hocon.Array {
			return r, p.errAt(rv, key+".rule_value", "expected a number, got %s", rv.String())
		}
		r.value = f
	}
	if eq := v.Get("equals_to"); eq != nil {
		if row {
			return r, p.errAt(eq, key+".equals_to", "equals_to applies to fields, not to row_rules")
		}
		r.equals = eq
	}
	if r.typ == ruleNone && r.equals == nil {
		return r, p.errAt(v, key, "a rule needs a rule_type or equals_to")
	}
	return r, nil
}

func (p *parser) fieldRule(v *hocon.Value, key string) (fieldRule, error) {
	f := fieldRule{}
	name := v.Get("field_name")
	if name == nil || name.Kind == hocon.Object || name.Kind == hocon.Array {
		return f, p.errAt(v, key+".field_name", "missing: a field rule names its field_name")
	}
	f.name, f.nameAt = name.String(), name
	if ft := v.Get("field_type"); ft != nil {
		t, err := literal.ParseType(ft)
		if err != nil {
			at := ft
			if le, ok := err.(*literal.Error); ok && le.At != nil {
				at = le.At
			}
			return f, p.errAt(at, key+".field_type", "%v", err)
		}
		f.fieldType, f.typeAt = t, ft
	}
	if fv := v.Get("field_value"); fv != nil {
		list, err := p.list(fv, key+".field_value")
		if err != nil {
			return f, err
		}
		for i, it := range list {
			r, err := p.valueRule(it, fmt.Sprintf("%s.field_value[%d]", key, i), false)
			if err != nil {
				return f, err
			}
			f.values = append(f.values, r)
		}
	}
	return f, nil
}

// boundField is a field rule resolved against a table's schema at plan
// time: its column, and equals_to converted to the column's type.
type boundField struct {
	rule     *fieldRule
	index    int
	colType  *row.Type
	equals   []any  // per value rule, equals_to in the column's type
	hasEq    []bool // per value rule: equals_to is set (and not null)
	decimals bool   // field_type holds a decimal: each value's precision is checked
}

// bind resolves tr's field rules against schema; every mistake is a
// positioned plan-time error.
func (p *parser) bind(tr *tableRules, schema *row.Schema) ([]boundField, error) {
	var out []boundField
	for fi := range tr.fields {
		f := &tr.fields[fi]
		idx := schema.Index(f.name)
		if idx < 0 {
			return nil, p.errAt(f.nameAt, "rules.field_rules", "field %q is not in table %s (fields: %s)", f.name, schema.TableID, strings.Join(schema.Names(), ", "))
		}
		ct := schema.Fields[idx].Type
		b := boundField{rule: f, index: idx, colType: ct, equals: make([]any, len(f.values)), hasEq: make([]bool, len(f.values))}
		if f.fieldType != nil {
			if bad, why := typeMismatch(ct, f.fieldType); bad {
				return nil, p.errAt(f.typeAt, "rules.field_rules", "field %q of table %s is %s, not %s%s: every value would fail this rule", f.name, schema.TableID, ct, f.fieldType, why)
			}
			b.decimals = hasDecimal(f.fieldType)
		}
		for i, r := range f.values {
			if r.equals == nil || r.equals.Kind == hocon.Null {
				continue // Java compares only a non-null equals_to
			}
			v, err := literal.Convert(ct, r.equals)
			if err != nil {
				at := r.equals
				if le, ok := err.(*literal.Error); ok && le.At != nil {
					at = le.At
				}
				return nil, p.errAt(at, "rules.field_rules", "field %q: equals_to: %v", f.name, err)
			}
			b.equals[i], b.hasEq[i] = v, true
		}
		out = append(out, b)
	}
	return out, nil
}

// typeMismatch tells whether values of column type col never pass
// SeaTunnel's type check against the declared type (Java class equality,
// decimals by scale, containers element by element), with a detail for the
// message. A null column always passes: the check skips null values.
func typeMismatch(col, decl *row.Type) (bool, string) {
	if col.ID == row.TypeNull {
		return false, ""
	}
	if col.ID != decl.ID {
		return true, ""
	}
	switch col.ID {
	case row.TypeDecimal:
		if col.Scale != decl.Scale {
			return true, fmt.Sprintf(" (scale %d against %d)", col.Scale, decl.Scale)
		}
	case row.TypeArray:
		if bad, _ := typeMismatch(col.Elem, decl.Elem); bad {
			return true, " (element types differ)"
		}
	case row.TypeMap:
		badK, _ := typeMismatch(col.Key, decl.Key)
		badV, _ := typeMismatch(col.Elem, decl.Elem)
		if badK || badV {
			return true, " (key or value types differ)"
		}
	case row.TypeRow:
		if len(col.Fields) != len(decl.Fields) {
			return true, fmt.Sprintf(" (%d fields against %d)", len(col.Fields), len(decl.Fields))
		}
		for i := range col.Fields {
			if bad, _ := typeMismatch(col.Fields[i].Type, decl.Fields[i].Type); bad {
				return true, fmt.Sprintf(" (field %s differs)", col.Fields[i].Name)
			}
		}
	}
	return false, ""
}

func hasDecimal(t *row.Type) bool {
	switch t.ID {
	case row.TypeDecimal:
		return true
	case row.TypeArray:
		return hasDecimal(t.Elem)
	case row.TypeMap:
		return hasDecimal(t.Key) || hasDecimal(t.Elem)
	case row.TypeRow:
		for _, f := range t.Fields {
			if hasDecimal(f.Type) {
				return true
			}
		}
	}
	return false
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
