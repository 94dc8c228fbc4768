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
	typ      ruleType
	value    float64 // rule_value
	hasValue bool
	equals   *hocon.Value
	at       *hocon.Value // the rule, for messages
	// deferred is why every value fails this rule, when SeaTunnel fails
	// only once it checks a value (so an empty input passes).
	deferred string
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
	// hasFields: field_rules is set (if empty).
	hasFields bool
}

// ruleSet is the whole rules block.
type ruleSet struct {
	at         *hocon.Value           // the block, for messages
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

// fieldsFor is the rules whose field rules apply to a table's rows. As in
// SeaTunnel's writer, when a single entry of tables_configs has
// field_rules, they apply to the rows of every table.
func (rs *ruleSet) fieldsFor(table string) *tableRules {
	if rs.all != nil {
		return rs.all
	}
	var only *tableRules
	n := 0
	for _, tr := range rs.byTable {
		if tr.hasFields {
			only, n = tr, n+1
		}
	}
	if n == 1 {
		return only
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

// parse reads a rules block; key is where it is (rules, or
// tables[i].rules), for messages.
func (p *parser) parse(rules *hocon.Value, key string) (*ruleSet, error) {
	if rules.Kind != hocon.Object {
		return nil, p.errAt(rules, key, "expected { row_rules = [...], field_rules = [...], ... }")
	}
	rs := &ruleSet{at: rules}
	if tn := rules.Get("table-names"); tn != nil {
		if tn.Kind != hocon.Array {
			return nil, p.errAt(tn, key+".table-names", "expected a list of table names")
		}
		rs.tableNames = []string{}
		for _, it := range tn.Items {
			rs.tableNames = append(rs.tableNames, it.String())
		}
	}
	if tc := rules.Get("tables_configs"); tc != nil {
		if tc.Kind != hocon.Array {
			return nil, p.errAt(tc, key+".tables_configs", "expected a list of { table_path = ..., row_rules = [...], field_rules = [...] }")
		}
		rs.byTable = map[string]*tableRules{}
		for i, entry := range tc.Items {
			ek := fmt.Sprintf("%s.tables_configs[%d]", key, i)
			if entry.Kind != hocon.Object {
				return nil, p.errAt(entry, ek, "expected { table_path = ..., ... }")
			}
			tp := entry.Get("table_path")
			if tp == nil || tp.Kind == hocon.Object || tp.Kind == hocon.Array {
				return nil, p.errAt(entry, ek+".table_path", "missing: each table's rules name their table_path")
			}
			tr, err := p.table(entry, ek)
			if err != nil {
				return nil, err
			}
			tr.table = tp.String()
			if _, dup := rs.byTable[tr.table]; dup {
				return nil, p.errAt(tp, ek+".table_path", "table %q has rules twice", tr.table)
			}
			rs.byTable[tr.table] = tr
		}
	} else {
		tr, err := p.table(rules, key)
		if err != nil {
			return nil, err
		}
		rs.all = tr
	}
	return rs, nil
}

// tables reads Assert's tables option: [{ table_path, rules }], a rules
// block per table path. An entry's table_path and rules are required, and
// a table has one entry (SeaTunnel takes the first whose table_path
// equals the table's full name, so a second would never apply).
func (p *parser) tables(v *hocon.Value) (map[string]*ruleSet, error) {
	if v.Kind != hocon.Array {
		return nil, p.errAt(v, "tables", "expected a list of { table_path = ..., rules = { ... } }")
	}
	out := map[string]*ruleSet{}
	for i, entry := range v.Items {
		key := fmt.Sprintf("tables[%d]", i)
		if entry.Kind != hocon.Object {
			return nil, p.errAt(entry, key, "expected { table_path = ..., rules = { ... } }")
		}
		tp := entry.Get("table_path")
		if tp == nil || tp.Kind == hocon.Object || tp.Kind == hocon.Array || tp.Kind == hocon.Null {
			return nil, p.errAt(entry, key+".table_path", "missing: each entry names the table_path its rules are for")
		}
		rules := entry.Get("rules")
		if rules == nil {
			return nil, p.errAt(entry, key+".rules", "missing: the rules of table %s (No configuration setting found for key 'rules')", tp.String())
		}
		rs, err := p.parse(rules, key+".rules")
		if err != nil {
			return nil, err
		}
		if _, dup := out[tp.String()]; dup {
			return nil, p.errAt(tp, key+".table_path", "table %q has rules twice", tp.String())
		}
		out[tp.String()] = rs
	}
	return out, nil
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
		tr.hasFields = true
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
	rt := v.Get("rule_type")
	if rt != nil {
		// AssertRuleType.valueOf: the exact upper-case name.
		t, ok := ruleNames[rt.String()]
		if !ok || rt.Kind == hocon.Object || rt.Kind == hocon.Array {
			want := "NULL, NOT_NULL, MIN, MAX, MIN_LENGTH, MAX_LENGTH"
			if row {
				want = "MIN_ROW, MAX_ROW"
			}
			return r, p.errAt(rt, key+".rule_type", "unknown rule type %s (want one of %s, upper case)", rt.String(), want)
		}
		r.typ = t
	} else if row {
		// The row count check switches on the rule type: none fails the job.
		return r, p.errAt(v, key+".rule_type", "missing: a row rule needs a rule_type (MIN_ROW or MAX_ROW)")
	}
	if rv := v.Get("rule_value"); rv != nil {
		f, ok := rv.Float()
		if !ok || rv.Kind == hocon.Object || rv.Kind == hocon.Array {
			return r, p.errAt(rv, key+".rule_value", "expected a number, got %s", rv.String())
		}
		r.value, r.hasValue = f, true
	}
	needsValue := r.typ == ruleMin || r.typ == ruleMax || r.typ == ruleMinLength || r.typ == ruleMaxLength
	if row {
		needsValue = r.typ == ruleMinRow || r.typ == ruleMaxRow
	}
	if needsValue && !r.hasValue {
		if row {
			return r, p.errAt(v, key+".rule_value", "missing: %s needs a rule_value", r.typ)
		}
		// SeaTunnel fails on the first value it compares with the missing
		// number, so an empty input still passes.
		r.deferred = fmt.Sprintf("%s has no rule_value", r.typ)
	}
	// equals_to is read for field rules only; row rules ignore it, as
	// SeaTunnel's count check does.
	if eq := v.Get("equals_to"); eq != nil && !row {
		r.equals = eq
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
	// A field_type that is neither a type name nor a row of them is
	// ignored, as SeaTunnel's parser does (it only logs a warning).
	if ft := v.Get("field_type"); ft != nil && (ft.Kind == hocon.String || ft.Kind == hocon.Object) {
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

// boundField is a field rule resolved against a table's schema: its
// column, and equals_to converted to the column's type. What SeaTunnel only
// finds out when it checks a value (a field not in the table, an equals_to
// that does not convert) is kept in missing and eqErr, and fails the first
// row (or the first non-null value) instead of the plan, so an empty input
// passes as it does there.
type boundField struct {
	rule    *fieldRule
	index   int
	colType *row.Type
	missing string  // the field is not in the table
	equals  []any   // per value rule, equals_to in the column's type
	hasEq   []bool  // per value rule: equals_to is set (and not null)
	eqErr   []error // per value rule: equals_to does not convert
}

// bind resolves tr's field rules against schema.
func (p *parser) bind(tr *tableRules, schema *row.Schema) []boundField {
	var out []boundField
	for fi := range tr.fields {
		f := &tr.fields[fi]
		idx := schema.Index(f.name)
		if idx < 0 {
			out = append(out, boundField{rule: f, index: -1, missing: fmt.Sprintf("field %q is not in table %s (fields: %s)", f.name, schema.TableID, strings.Join(schema.Names(), ", "))})
			continue
		}
		ct := schema.Fields[idx].Type
		b := boundField{rule: f, index: idx, colType: ct, equals: make([]any, len(f.values)), hasEq: make([]bool, len(f.values)), eqErr: make([]error, len(f.values))}
		for i, r := range f.values {
			if r.equals == nil || r.equals.Kind == hocon.Null {
				continue // Java compares only a non-null equals_to
			}
			if ct.ID == row.TypeNull {
				// A null column has no non-null value to compare.
				continue
			}
			v, err := literal.Convert(ct, r.equals)
			if err != nil {
				at := r.equals
				if le, ok := err.(*literal.Error); ok && le.At != nil {
					at = le.At
				}
				b.eqErr[i] = p.errAt(at, "rules.field_rules", "field %q: equals_to: %v", f.name, err)
				continue
			}
			b.equals[i], b.hasEq[i] = v, true
		}
		out = append(out, b)
	}
	return out
}

func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
