package fake

import (
	"context"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/connectors/splitenum"
)

// newEnumerator is SeaTunnel's FakeSourceSplitEnumerator: it cuts every
// table's rows into splits once and hands split k of a table to reader
// k % parallelism as soon as that reader is registered, followed by "no
// more splits" (splitenum does the dealing and the state).
func newEnumerator(ctx connectors.EnumeratorContext, tables []*tableConfig, state []byte) (*splitenum.Enumerator[*split], error) {
	return splitenum.New(ctx, splitenum.Splits[*split]{
		Name: "FakeSource",
		Discover: func(_ context.Context, n int) ([]*split, error) {
			return discover(tables, n, time.Now().Year()), nil
		},
		Encode: (*split).encode,
		Decode: decodeSplit,
		Owner:  func(s *split) int { return s.index },
	}, state)
}

// discover makes the splits as SeaTunnel does: per table and per reader i
// of n, splits i, i+n, i+2n, ... of ceil(row.num/split.num) rows until
// row.num rows are covered. A table with fixed rows emits all of them in
// each split.
func discover(tables []*tableConfig, n, year int) []*split {
	var out []*split
	for _, t := range tables {
		per := (t.rowNum + t.splitNum - 1) / t.splitNum
		for i := 0; i < n; i++ {
			index := i
			for num := 0; num < t.rowNum; num += per {
				rows := min(per, t.rowNum-num)
				if t.custom != nil {
					rows = t.custom.Len()
				}
				out = append(out, &split{table: t.schema.TableID, index: index, rows: rows, year: year})
				index += n
			}
		}
	}
	return out
}
