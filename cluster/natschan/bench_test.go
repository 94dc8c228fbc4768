package natschan

import (
	"testing"
	"time"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/row"
)

// BenchmarkSendReceive sends 4096-row batches of (id bigint, name string,
// score double) from one connection to another through an embedded server
// over loopback, with a credit window of 8 batches as the engine uses, and
// counts a batch when it is decoded and delivered. MB/s is of the row
// codec's encoding.
func BenchmarkSendReceive(b *testing.B) {
	const rows, window = 4096, 8
	s := runServer(b, nil)
	credits := make(chan struct{}, window)
	done := make(chan struct{})
	var c collector
	delivered := 0
	target := b.N
	r, err := NewReceiver(connect(b, s), scope, 0, func(m any) {
		if _, ok := m.(*messages.Batch); ok {
			delivered++
			<-credits
			if delivered == target {
				close(done)
			}
		}
	}, c.onError)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = r.Close() })
	snd := newSender(b, connect(b, s), scope, 0, 0)
	batch := scoreBatch(0, rows, 12)
	size := row.EncodedSize(batch)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		credits <- struct{}{}
		if err := snd.SendBatch(0, int64(i+1), 0, batch); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		b.Fatalf("delivered %d of %d", delivered, b.N)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if _, errs := c.snapshot(); len(errs) > 0 {
		b.Fatal(errs)
	}
	b.ReportMetric(float64(b.N*rows)/elapsed.Seconds(), "rows/s")
	b.ReportMetric(float64(size), "bytes/batch")
}
