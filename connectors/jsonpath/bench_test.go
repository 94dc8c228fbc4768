package jsonpath

import (
	"fmt"
	"testing"

	"github.com/stactor/stactor/row"
)

// BenchmarkProcess measures rows per second for three columns read from
// one small JSON document per row.
func BenchmarkProcess(b *testing.B) {
	root := `columns = [
  { src_field = data, path = "$.user.id", dest_field = uid, dest_type = bigint },
  { src_field = data, path = "$.user.name", dest_field = uname },
  { src_field = data, path = "$.items[0].price", dest_field = p, dest_type = "decimal(10, 2)" }
]`
	tr := mustTransform(&testing.T{}, root)
	const n = 4096
	bl := row.NewBuilder(input, n)
	for i := 0; i < n; i++ {
		doc := fmt.Sprintf(`{"user": {"id": %d, "name": "user %d"}, "items": [{"price": %d.25, "sku": "x"}], "ok": true}`, i, i, i)
		if err := bl.AppendRow(row.Insert, []any{int64(i), doc, nil, nil, nil, nil}); err != nil {
			b.Fatal(err)
		}
	}
	in := bl.Build()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := tr.Process(in); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}
