package assert

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/row"
)

// rulesFor are rules that the suite's rows of schema keep: each field's
// declared type, ids not null and within 0..rows-1. A rule that did not
// hold would fail the suite's writes or commits.
func rulesFor(schema *row.Schema, rows int) string {
	var b strings.Builder
	b.WriteString("rules {\n  field_rules = [\n")
	fmt.Fprintf(&b, "    { field_name = id, field_type = bigint, field_value = [{ rule_type = NOT_NULL }, { rule_type = MIN, rule_value = 0 }, { rule_type = MAX, rule_value = %d }] }\n", rows-1)
	for _, f := range schema.Fields[1:] {
		fmt.Fprintf(&b, "    { field_name = %s, field_type = %s }\n", strconv.Quote(f.Name), strconv.Quote(f.Type.String()))
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

func TestConformance(t *testing.T) {
	conformance.RunSink(t, conformance.Sink{
		Factory: Factory,
		Types:   conformance.AllTypes(),
		Target: func(_ string, schema *row.Schema) (string, func() ([][]any, error), error) {
			return rulesFor(schema, 60), nil, nil
		},
		BadOptions: []conformance.BadOption{
			{Name: "NoRules", Body: "", Error: "rules"},
			{Name: "EmptyRules", Body: "rules {}", Error: "Assert rule config is empty"},
			{Name: "UnknownField", Body: "rules { field_rules = [{ field_name = nope, field_value = [{ rule_type = NOT_NULL }] }] }", Error: "nope"},
			{Name: "WrongType", Body: "rules { field_rules = [{ field_name = id, field_type = string }] }", Error: "id"},
		},
	})
}
