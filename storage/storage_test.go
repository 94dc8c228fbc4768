package storage_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

// A checkpoint's subtask states are read from their blobs, or, without a
// handle, from the metadata itself (inline, as a small state's ack put
// them there) — an empty inline state included.
func TestReadSubtaskStatesInlineAndBlob(t *testing.T) {
	store, err := localfile.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	big := &messages.SubtaskState{Chain: 1, Subtask: 1, Vertices: []*messages.VertexState{{Vertex: 7, WriterStates: [][]byte{make([]byte, 100<<10)}}}}
	bigData, _ := proto.Marshal(big)
	h, err := store.WriteState("job", 1, 0, 5, "task-1-1", bigData)
	if err != nil {
		t.Fatal(err)
	}
	small := &messages.SubtaskState{Chain: 1, Subtask: 2, Vertices: []*messages.VertexState{{Vertex: 3, Splits: []*messages.Split{{Id: "s", Data: []byte{9}}}}}}
	smallData, _ := proto.Marshal(small)
	cp := &messages.CompletedCheckpoint{JobId: "job", Pipeline: 1, Id: 5, Tasks: []*messages.TaskStateRef{
		{Chain: 1, Subtask: 1, Handle: h},
		{Chain: 1, Subtask: 2, State: smallData},
		{Chain: 0, Subtask: 0}, // chain 0, subtask 0, nothing to restore: encodes to no bytes
	}}
	got, err := storage.ReadSubtaskStates(store, cp)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || !proto.Equal(got[0], big) || !proto.Equal(got[1], small) || !proto.Equal(got[2], &messages.SubtaskState{}) {
		t.Fatalf("read %v", got)
	}
}
