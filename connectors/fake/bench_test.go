package fake

import (
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

// discard counts what a reader emits, as a sink that drops rows.
type discard struct {
	size int
	rows int
}

func (d *discard) Emit(b *row.Batch) { d.rows += b.Len() }
func (d *discard) BatchSize() int    { return d.size }

// BenchmarkPoll measures generation for (id bigint, name string, score
// double) in batches of 4096 rows; it reports rows/s.
func BenchmarkPoll(b *testing.B) {
	src := newSource(b, simple, connectors.Batch)
	rc := &readerCtx{bounded: connectors.Unbounded}
	rd := testReader(src, rc)
	rd.AddSplits([]connectors.Split{(&split{table: DefaultTable, rows: 1 << 62, year: 2024}).encode()})
	out := &discard{size: 4096}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := rd.PollNext(out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(out.rows), "ns/row")
}
