package natschan

import (
	"errors"
	"strings"
	"testing"

	"github.com/stactor/stactor/row"
)

// wireMsg is one message as the demux sees it; edge picks the subject.
// raw, when set, is the whole payload (not a frame of ours); otherwise the
// payload is f's frame then data.
type wireMsg struct {
	edge int32
	f    frame
	data []byte
	raw  []byte
}

// msgOf is a message of kind on scope's attempt from subtask 1, whole
// (part 0 of 1), edited by edits.
func msgOf(kind byte, seq int64, data []byte, edits ...func(*frame)) wireMsg {
	f := frame{kind: kind, from: 1, attempt: scope.Attempt, term: scope.Term, seq: seq, parts: 1}
	for _, e := range edits {
		e(&f)
	}
	return wireMsg{f: f, data: data}
}

func (m wireMsg) payload() []byte {
	if m.raw != nil {
		return m.raw
	}
	return append(appendFrame(nil, &m.f), m.data...)
}

func runDemux(t *testing.T, msgs []wireMsg) ([]any, []error) {
	t.Helper()
	var c collector
	d := newDemux(scope, c.deliver, c.onError)
	for _, m := range msgs {
		subject, err := Subject(DefaultPrefix, scope, m.edge, 0)
		if err != nil {
			t.Fatal(err)
		}
		d.handle(subject, m.payload())
	}
	return c.snapshot()
}

func TestDemuxProtocol(t *testing.T) {
	enc := row.AppendBatch(nil, scoreBatch(0, 100, 12))
	third := len(enc) / 3
	p0, p1, p2 := enc[:third], enc[third:2*third], enc[2*third:]
	batch := func(seq int64, edits ...func(*frame)) wireMsg { return msgOf(kindBatch, seq, enc, edits...) }
	part := func(seq int64, i, n uint32, data []byte) wireMsg {
		return msgOf(kindBatch, seq, data, func(f *frame) { f.part, f.parts = i, n })
	}
	end := func(seq int64) wireMsg { return msgOf(kindEnd, seq, nil) }
	barrier := func(id, seq int64) wireMsg {
		return msgOf(kindBarrier, seq, nil, func(f *frame) { f.barrier, f.typ = id, "checkpoint" })
	}
	for _, tc := range []struct {
		name string
		msgs []wireMsg
		want string // delivered, one per line
		err  error  // the error reported, if any
	}{
		{name: "parts joined", msgs: []wireMsg{part(1, 0, 3, p0), part(1, 1, 3, p1), part(1, 2, 3, p2), end(1)},
			want: "batch e0 f1 #1 b0 (100 rows)\nend e0 f1 #1"},
		{name: "barrier of a split batch", msgs: []wireMsg{
			msgOf(kindBatch, 1, enc[:10], func(f *frame) { f.part, f.parts, f.barrier = 0, 2, 9 }),
			msgOf(kindBatch, 1, enc[10:], func(f *frame) { f.part, f.parts = 1, 2 })},
			want: "batch e0 f1 #1 b9 (100 rows)"},
		{name: "part missing", msgs: []wireMsg{part(1, 0, 3, p0), part(1, 2, 3, p2)}, err: ErrGap},
		{name: "part repeated", msgs: []wireMsg{part(1, 0, 3, p0), part(1, 0, 3, p0)}, err: ErrDuplicate},
		{name: "next batch before the last part", msgs: []wireMsg{part(1, 0, 3, p0), batch(2)}, err: ErrGap},
		{name: "end before the last part", msgs: []wireMsg{part(1, 0, 3, p0), end(1)}, err: ErrGap},
		{name: "barrier before the last part", msgs: []wireMsg{part(1, 0, 3, p0), barrier(1, 1)}, err: ErrGap},
		{name: "first parts missing", msgs: []wireMsg{part(1, 1, 3, p1)}, err: ErrGap},
		{name: "part count changes", msgs: []wireMsg{part(1, 0, 3, p0), part(1, 1, 4, p1)}, err: ErrCorrupt},
		{name: "bad part", msgs: []wireMsg{part(1, 3, 3, p0)}, err: ErrCorrupt},
		{name: "end twice", msgs: []wireMsg{batch(1), end(1), end(1)}, want: "batch e0 f1 #1 b0 (100 rows)\nend e0 f1 #1", err: ErrDuplicate},
		{name: "end after a lost batch", msgs: []wireMsg{batch(1), end(2)}, want: "batch e0 f1 #1 b0 (100 rows)", err: ErrGap},
		{name: "empty channel", msgs: []wireMsg{barrier(1, 0), end(0)}, want: "barrier e0 f1 id1 checkpoint\nmarker e0 f1 id1 #0 checkpoint\nend e0 f1 #0"},
		{name: "barrier repeated", msgs: []wireMsg{barrier(2, 0), barrier(2, 0)}, want: "barrier e0 f1 id2 checkpoint\nmarker e0 f1 id2 #0 checkpoint", err: ErrDuplicate},
		{name: "old barrier", msgs: []wireMsg{batch(1), barrier(1, 0)}, want: "batch e0 f1 #1 b0 (100 rows)", err: ErrDuplicate},
		{name: "batch after end", msgs: []wireMsg{end(0), batch(1)}, want: "end e0 f1 #0", err: ErrCorrupt},
		{name: "bad kind", msgs: []wireMsg{msgOf(9, 1, nil)}, err: ErrCorrupt},
		{name: "bad seq", msgs: []wireMsg{batch(-1)}, err: ErrCorrupt},
		{name: "no parts", msgs: []wireMsg{batch(1, func(f *frame) { f.parts = 0 })}, err: ErrCorrupt},
		{name: "too many parts", msgs: []wireMsg{batch(1, func(f *frame) { f.parts = maxParts + 1 })}, err: ErrCorrupt},
		{name: "end in parts", msgs: []wireMsg{msgOf(kindEnd, 0, nil, func(f *frame) { f.parts = 2 })}, err: ErrCorrupt},
		{name: "end with data", msgs: []wireMsg{msgOf(kindEnd, 0, enc)}, err: ErrCorrupt},
		{name: "barrier with no id", msgs: []wireMsg{barrier(0, 0)}, err: ErrCorrupt},
		{name: "batch with a type", msgs: []wireMsg{batch(1, func(f *frame) { f.typ = "checkpoint" })}, err: ErrCorrupt},
		{name: "negative barrier", msgs: []wireMsg{batch(1, func(f *frame) { f.barrier = -1 })}, err: ErrCorrupt},
		{name: "type longer than the message", msgs: []wireMsg{{raw: func() []byte {
			m := barrier(1, 0).payload()
			m[44] = 200
			return m
		}()}}, err: ErrCorrupt},
		{name: "no sender", msgs: []wireMsg{batch(1, func(f *frame) { f.from = -1 })}, err: ErrCorrupt},
		{name: "not a batch", msgs: []wireMsg{msgOf(kindBatch, 1, []byte("hello"))}, err: ErrCorrupt},
		{name: "bytes after the batch", msgs: []wireMsg{msgOf(kindBatch, 1, append(enc[:len(enc):len(enc)], 0))}, err: ErrCorrupt},
		{name: "other attempt", msgs: []wireMsg{batch(1, func(f *frame) { f.attempt = 2 }), batch(1)},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "other term", msgs: []wireMsg{batch(1, func(f *frame) { f.term = 6 }), batch(1)},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "no frame", msgs: []wireMsg{{raw: enc}, {raw: []byte("sT")}, batch(1)},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "another version", msgs: []wireMsg{{raw: func() []byte {
			m := batch(1).payload()
			m[2] = frameVersion + 1
			return m
		}()}, batch(1)}, err: ErrCorrupt},
		{name: "channels are separate", msgs: []wireMsg{batch(1), {edge: 1, f: batch(1).f, data: enc}, batch(2)},
			want: "batch e0 f1 #1 b0 (100 rows)\nbatch e1 f1 #1 b0 (100 rows)\nbatch e0 f1 #2 b0 (100 rows)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, errs := runDemux(t, tc.msgs)
			if g := strings.TrimSuffix(describeAll(got), "\n"); g != tc.want {
				t.Errorf("delivered:\n%s\nwant:\n%s", g, tc.want)
			}
			switch {
			case tc.err == nil && len(errs) > 0:
				t.Errorf("errors %v", errs)
			case tc.err != nil && (len(errs) != 1 || !errors.Is(errs[0], tc.err)):
				t.Errorf("errors %v, want one wrapping %v", errs, tc.err)
			}
		})
	}
}

// FuzzDemux feeds the receiver arbitrary messages after a valid first
// part of a batch: it must never panic, and a batch it delivers must be
// whole.
func FuzzDemux(f *testing.F) {
	enc := row.AppendBatch(nil, everyTypeRows(f))
	first := msgOf(kindBatch, 1, enc[:7], func(f *frame) { f.parts = 2 }).payload()
	f.Add(msgOf(kindBatch, 2, enc).payload())
	f.Add(msgOf(kindBatch, 1, enc[7:], func(f *frame) { f.part, f.parts = 1, 2 }).payload())
	f.Add(msgOf(kindBatch, 2, enc[:20], func(f *frame) { f.parts, f.barrier = 2, 1 }).payload())
	f.Add(msgOf(kindEnd, 1, nil).payload())
	f.Add(msgOf(kindBarrier, 1, nil, func(f *frame) { f.barrier, f.typ = 5, "checkpoint" }).payload())
	f.Add(msgOf(kindBatch, -1, []byte{1, 2, 3}, func(f *frame) { f.part, f.parts = 9999999, 1 }).payload())
	f.Add([]byte("sT\x01"))
	f.Fuzz(func(t *testing.T, msg []byte) {
		var c collector
		d := newDemux(scope, c.deliver, c.onError)
		subject, _ := Subject(DefaultPrefix, scope, 0, 0)
		d.handle(subject, first)
		d.handle(subject, msg)
		d.handle(subject, msg)
		got, _ := c.snapshot()
		for _, m := range got {
			_ = describe(m) // every delivered batch has rows
		}
	})
}
