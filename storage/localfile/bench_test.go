package localfile

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage/storagetest"
)

// BenchmarkWriteState64KiB: one subtask's 64 KiB state, fsynced.
func BenchmarkWriteState64KiB(b *testing.B) {
	s := open(b, b.TempDir())
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

// BenchmarkWriteState64KiBParallel: the subtasks of a pipeline writing
// their 64 KiB states at once, each its own name.
func BenchmarkWriteState64KiBParallel(b *testing.B) {
	s := open(b, b.TempDir())
	data := make([]byte, 64<<10)
	b.SetBytes(int64(len(data)))
	var tasks atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		name := fmt.Sprintf("task-1-%d", tasks.Add(1))
		var id int64
		for pb.Next() {
			id++
			if _, err := s.WriteState("bench", 0, 0, id, name, data); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkComplete: the coordinator completing a checkpoint of 8 subtask
// states and a pending commit, retaining 3 as it does after every
// checkpoint (Retain, every 8th, is not timed).
func BenchmarkComplete(b *testing.B) {
	s := open(b, b.TempDir())
	const job = "bench"
	var handles []string
	for i := range 8 {
		h, err := s.WriteState(job, 0, 0, 0, fmt.Sprintf("task-1-%d", i), make([]byte, 1024))
		if err != nil {
			b.Fatal(err)
		}
		handles = append(handles, h)
	}
	b.ResetTimer()
	for i := 1; i <= b.N; i++ {
		id := int64(i)
		cp := storagetest.Checkpoint(job, 0, id, 0, handles...)
		cp.Pending = []*messages.PendingCommit{{CheckpointId: id, Info: make([]byte, 256)}}
		if err := s.Complete(context.Background(), cp); err != nil {
			b.Fatal(err)
		}
		if i%8 == 0 {
			b.StopTimer()
			if err := s.Retain(context.Background(), job, 0, 3, nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
		}
	}
}
