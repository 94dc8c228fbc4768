package metrics

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/internal/natstest"
	"github.com/stactor/stactor/messages"
)

// A published snapshot reaches a subscriber of its job and of every job,
// whole; a subscriber of another job gets nothing.
func TestPublishSubscribe(t *testing.T) {
	s, err := natstest.Start("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	got := map[string]chan *messages.JobMetrics{"j1": make(chan *messages.JobMetrics, 1), "": make(chan *messages.JobMetrics, 1), "j2": make(chan *messages.JobMetrics, 1)}
	for job, ch := range got {
		sub, err := Subscribe(nc, "st.x", job, func(m *messages.JobMetrics) { ch <- m })
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe() //nolint:errcheck
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	want := &messages.JobMetrics{JobId: "j1", Name: "n", State: "RUNNING", UnixMs: 1, ReadRows: 1 << 40, ReadRowsPerSecond: 12.5,
		Vertices:  []*messages.VertexMetrics{{Vertex: 0, Name: "Source[0]-FakeSource", RowsOut: 7, BusyMsPerSecond: 250}},
		Pipelines: []*messages.PipelineMetrics{{Pipeline: 1, LastCheckpointId: 3, LastCheckpointSizeBytes: 99}},
		Subtasks:  []*messages.SubtaskMetrics{{Pipeline: 1, Chain: 0, Subtask: 1, InFlight: 4}}}
	NewPublisher(nc, "st.x", zerolog.Nop()).Publish(want)
	for _, job := range []string{"j1", ""} {
		select {
		case m := <-got[job]:
			if !proto.Equal(m, want) {
				t.Fatalf("subscriber of %q got %v, want %v", job, m, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("subscriber of %q got nothing", job)
		}
	}
	select {
	case m := <-got["j2"]:
		t.Fatalf("the subscriber of j2 got %v", m)
	case <-time.After(100 * time.Millisecond):
	}
	if _, err := Decode([]byte("{not json")); err == nil {
		t.Fatal("Decode took malformed JSON")
	}
}
