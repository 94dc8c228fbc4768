package kafka

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
	"github.com/twmb/franz-go/pkg/kgo"
)

// forward hands the reader's batches straight to a writer.
type forward struct {
	w connectors.Writer
	n int
	t testing.TB
}

func (f *forward) Emit(b *row.Batch) {
	f.n += b.Len()
	if err := f.w.Write(b); err != nil {
		f.t.Fatal(err)
	}
}
func (f *forward) BatchSize() int { return 1024 }

// BenchmarkKafkaToKafka moves b.N JSON records from one topic to another
// through one reader and one AT_LEAST_ONCE writer, in process: the
// connector's own cost without the engine.
func BenchmarkKafkaToKafka(b *testing.B) {
	in, out := newTopic(b, 1), newTopic(b, 1)
	cl := testClient(b, kgo.ProducerLinger(5e6))
	for i := 0; i < b.N; i++ {
		cl.Produce(context.Background(), &kgo.Record{Topic: in, Value: []byte(`{"id":` + strconv.Itoa(i) + `,"name":"name-` + strconv.Itoa(i) + `"}`)}, nil)
	}
	if err := cl.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	s := newSource(b, srcBody(in, ""), connectors.JobContext{JobID: "bench", Mode: connectors.Batch, Parallelism: 1})
	schema := s.Tables()[0]
	k := newSink(b, fmt.Sprintf("topic = %q\nbootstrap.servers = %q\nsemantics = AT_LEAST_ONCE", out, broker), schema, batchJob)
	b.ResetTimer()
	w, err := k.CreateWriter(context.Background(), task(0, 1), nil)
	if err != nil {
		b.Fatal(err)
	}
	assigned, _ := splitsOf(b, s, 1, nil)
	rc := &readerCtx{bounded: connectors.Bounded}
	r, _ := s.CreateReader(rc)
	r.Open(context.Background())
	r.AddSplits(assigned[0])
	r.HandleNoMoreSplits()
	f := &forward{w: w, t: b}
	for rc.ended == 0 {
		if err := r.PollNext(f); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := w.PrepareCommit(1); err != nil {
		b.Fatal(err)
	}
	r.Close()
	w.Close()
	if f.n != b.N {
		b.Fatalf("moved %d of %d", f.n, b.N)
	}
}
