package fake

import (
	"fmt"
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/row"
)

// FakeSource generates its rows: row.num per reader, so with 2 readers a
// table of n rows is row.num = n/2.
func fakeCase(mode connectors.JobMode) conformance.Source {
	return conformance.Source{
		Factory:     Factory,
		Generated:   true,
		Types:       conformance.AllTypes(),
		Mode:        mode,
		Parallelism: 2,
		Table: func(_ string, schema *row.Schema, rows [][]any) (string, error) {
			return fmt.Sprintf("row.num = %d\nsplit.num = 3\nsplit.read-interval = 0\n%s", len(rows)/2, conformance.SchemaOption(schema)), nil
		},
		BadOptions: []conformance.BadOption{
			{Name: "NoSchema", Body: "row.num = 3", Error: "FakeSource needs a schema"},
			{Name: "BadType", Body: `schema = { fields { a = "decimal(x)" } }`, Error: "decimal"},
			{Name: "WrongOptionType", Body: "row.num = many\n" + simple, Error: "row.num"},
		},
	}
}

func TestConformanceBatch(t *testing.T) { conformance.RunSource(t, fakeCase(connectors.Batch)) }

func TestConformanceStreaming(t *testing.T) { conformance.RunSource(t, fakeCase(connectors.Streaming)) }
