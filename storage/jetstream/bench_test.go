package jetstream

import (
	"context"
	"testing"

	"github.com/stactor/stactor/storage/storagetest"
)

// BenchmarkWriteState64KiB: one subtask's 64 KiB state.
func BenchmarkWriteState64KiB(b *testing.B) {
	srv := runServer(b, b.TempDir(), -1)
	s := openStore(b, connect(b, srv.ClientURL()), newPrefix())
	data := make([]byte, 64<<10)
	for i := range data {
		data[i] = byte(i * 7)
	}
	b.SetBytes(int64(len(data)))
	var id int64
	for b.Loop() {
		id++
		if _, err := s.WriteState("bench", 0, 0, id, "task-1-0", data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckpoint: what a coordinator does per checkpoint with four
// subtasks — an id, four 4 KiB states, Complete, Retain.
func BenchmarkCheckpoint(b *testing.B) {
	srv := runServer(b, b.TempDir(), -1)
	s := openStore(b, connect(b, srv.ClientURL()), newPrefix())
	a, err := s.NextAttempt("bench", 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 4<<10)
	for b.Loop() {
		id, err := s.NextCheckpointID(context.Background(), "bench", 0)
		if err != nil {
			b.Fatal(err)
		}
		var hs []string
		for _, name := range []string{"task-1-0", "task-1-1", "task-2-0", "task-2-1"} {
			h, err := s.WriteState("bench", 0, a, id, name, data)
			if err != nil {
				b.Fatal(err)
			}
			hs = append(hs, h)
		}
		if err := s.Complete(context.Background(), storagetest.Checkpoint("bench", 0, id, a, hs...)); err != nil {
			b.Fatal(err)
		}
		if err := s.Retain(context.Background(), "bench", 0, 3, nil); err != nil {
			b.Fatal(err)
		}
	}
}
