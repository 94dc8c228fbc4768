package cdc

import (
	"encoding/json"
	"fmt"

	"github.com/stactor/stactor/connectors"
)

// The kinds of split a reader holds.
const (
	kindChunk  = "chunk"  // a snapshot chunk to read
	kindDone   = "done"   // a finished chunk's marker, until the enumerator has it for sure
	kindStream = "stream" // the change log
)

// doneChunk is a finished chunk and its high watermark.
type doneChunk struct {
	Chunk
	High Offset `json:"h"`
}

// streamSplit is the stream phase's split and its position: every
// transaction up to Pos was emitted, and Skip rows of the next one.
type streamSplit struct {
	Pos  Offset `json:"pos"`
	Skip int64  `json:"skip,omitempty"`
	Stop Offset `json:"stop,omitempty"`
	// Chunks are the finished chunks whose changes up to their high
	// watermark are not to be emitted again, sorted by table and key;
	// dropped once Pos passes MaxHigh.
	Chunks  []doneChunk `json:"chunks,omitempty"`
	MaxHigh Offset      `json:"max_high,omitempty"`
	// Tables are the captured tables whose schema changed before Pos
	// (schema-changes.enabled), as the stream describes them now.
	Tables []changedTable `json:"tables,omitempty"`
}

// changedTable is table T's description after a schema change, and the
// version of its schema (row/schemachange.go).
type changedTable struct {
	T       int   `json:"t"`
	Version int64 `json:"v,omitempty"`
	resolvedTable
}

// splitState is a split as the engine stores it.
type splitState struct {
	Kind   string       `json:"k"`
	Chunk  *Chunk       `json:"c,omitempty"`
	Done   *doneChunk   `json:"d,omitempty"`
	Stream *streamSplit `json:"s,omitempty"`
}

func (s splitState) encode() connectors.Split {
	b, _ := json.Marshal(s) // plain fields: cannot fail
	id := kindStream
	switch s.Kind {
	case kindChunk:
		id = s.Chunk.ID()
	case kindDone:
		id = "done-" + s.Done.ID()
	}
	return connectors.Split{ID: id, Data: b}
}

func decodeSplit(cs connectors.Split, tables int) (splitState, error) {
	var s splitState
	if err := json.Unmarshal(cs.Data, &s); err != nil {
		return s, fmt.Errorf("CDC split %q: %w", cs.ID, err)
	}
	var t int
	switch {
	case s.Kind == kindChunk && s.Chunk != nil:
		t = s.Chunk.Table
	case s.Kind == kindDone && s.Done != nil:
		t = s.Done.Table
	case s.Kind == kindStream && s.Stream != nil:
		for _, c := range s.Stream.Chunks {
			t = max(t, c.Table)
		}
		for _, c := range s.Stream.Tables {
			t = max(t, c.T)
		}
	default:
		return s, fmt.Errorf("CDC split %q: not a split of this source", cs.ID)
	}
	if t < 0 || t >= tables {
		return s, fmt.Errorf("CDC split %q: names table %d of %d (did the job's tables change?)", cs.ID, t, tables)
	}
	return s, nil
}
