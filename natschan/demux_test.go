package natschan

import (
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/row"
)

// wireMsg is one message as the demux sees it; edge picks the subject.
type wireMsg struct {
	edge int32
	hdr  map[string]string
	data []byte
}

func hdr(kv ...string) map[string]string {
	m := map[string]string{HeaderAttempt: "3", HeaderTerm: "7", HeaderFrom: "1"}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "-" {
			delete(m, kv[i])
			continue
		}
		m[kv[i]] = kv[i+1]
	}
	return m
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
		h := nats.Header{}
		for k, v := range m.hdr {
			h.Set(k, v)
		}
		d.handle(subject, h, m.data)
	}
	return c.snapshot()
}

func TestDemuxProtocol(t *testing.T) {
	enc := row.AppendBatch(nil, scoreBatch(0, 100, 12))
	third := len(enc) / 3
	p0, p1, p2 := enc[:third], enc[third:2*third], enc[2*third:]
	batch := func(seq string, kv ...string) wireMsg {
		return wireMsg{hdr: hdr(append([]string{HeaderKind, KindBatch, HeaderSeq, seq}, kv...)...), data: enc}
	}
	part := func(seq, p string, data []byte) wireMsg {
		return wireMsg{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, seq, HeaderPart, p), data: data}
	}
	end := func(seq string) wireMsg { return wireMsg{hdr: hdr(HeaderKind, KindEnd, HeaderSeq, seq)} }
	barrier := func(id, seq string) wireMsg {
		return wireMsg{hdr: hdr(HeaderKind, KindBarrier, HeaderSeq, seq, HeaderBarrier, id, HeaderType, "checkpoint")}
	}
	for _, tc := range []struct {
		name string
		msgs []wireMsg
		want string // delivered, one per line
		err  error  // the error reported, if any
	}{
		{name: "parts joined", msgs: []wireMsg{part("1", "0/3", p0), part("1", "1/3", p1), part("1", "2/3", p2), end("1")},
			want: "batch e0 f1 #1 b0 (100 rows)\nend e0 f1 #1"},
		{name: "barrier of a split batch", msgs: []wireMsg{
			{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1", HeaderPart, "0/2", HeaderBarrier, "9"), data: enc[:10]},
			{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1", HeaderPart, "1/2"), data: enc[10:]}},
			want: "batch e0 f1 #1 b9 (100 rows)"},
		{name: "part missing", msgs: []wireMsg{part("1", "0/3", p0), part("1", "2/3", p2)}, err: ErrGap},
		{name: "part repeated", msgs: []wireMsg{part("1", "0/3", p0), part("1", "0/3", p0)}, err: ErrDuplicate},
		{name: "next batch before the last part", msgs: []wireMsg{part("1", "0/3", p0), batch("2")}, err: ErrGap},
		{name: "end before the last part", msgs: []wireMsg{part("1", "0/3", p0), end("1")}, err: ErrGap},
		{name: "barrier before the last part", msgs: []wireMsg{part("1", "0/3", p0), barrier("1", "1")}, err: ErrGap},
		{name: "first parts missing", msgs: []wireMsg{part("1", "1/3", p1)}, err: ErrGap},
		{name: "part count changes", msgs: []wireMsg{part("1", "0/3", p0), part("1", "1/4", p1)}, err: ErrCorrupt},
		{name: "bad part", msgs: []wireMsg{part("1", "3/3", p0)}, err: ErrCorrupt},
		{name: "end twice", msgs: []wireMsg{batch("1"), end("1"), end("1")}, want: "batch e0 f1 #1 b0 (100 rows)\nend e0 f1 #1", err: ErrDuplicate},
		{name: "end after a lost batch", msgs: []wireMsg{batch("1"), end("2")}, want: "batch e0 f1 #1 b0 (100 rows)", err: ErrGap},
		{name: "empty channel", msgs: []wireMsg{barrier("1", "0"), end("0")}, want: "barrier e0 f1 id1 checkpoint\nmarker e0 f1 id1 #0 checkpoint\nend e0 f1 #0"},
		{name: "barrier repeated", msgs: []wireMsg{barrier("2", "0"), barrier("2", "0")}, want: "barrier e0 f1 id2 checkpoint\nmarker e0 f1 id2 #0 checkpoint", err: ErrDuplicate},
		{name: "old barrier", msgs: []wireMsg{batch("1"), barrier("1", "0")}, want: "batch e0 f1 #1 b0 (100 rows)", err: ErrDuplicate},
		{name: "batch after end", msgs: []wireMsg{end("0"), batch("1")}, want: "end e0 f1 #0", err: ErrCorrupt},
		{name: "bad kind", msgs: []wireMsg{{hdr: hdr(HeaderKind, "what", HeaderSeq, "1")}}, err: ErrCorrupt},
		{name: "bad seq", msgs: []wireMsg{{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "x")}}, err: ErrCorrupt},
		{name: "no sender", msgs: []wireMsg{{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1", HeaderFrom, "-")}}, err: ErrCorrupt},
		{name: "not a batch", msgs: []wireMsg{{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1"), data: []byte("hello")}}, err: ErrCorrupt},
		{name: "bytes after the batch", msgs: []wireMsg{{hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1"), data: append(enc[:len(enc):len(enc)], 0)}}, err: ErrCorrupt},
		{name: "other attempt", msgs: []wireMsg{{hdr: hdr(HeaderAttempt, "2", HeaderKind, KindBatch, HeaderSeq, "1"), data: enc}, batch("1")},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "other term", msgs: []wireMsg{{hdr: hdr(HeaderTerm, "6", HeaderKind, KindBatch, HeaderSeq, "1"), data: enc}, batch("1")},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "no term", msgs: []wireMsg{{hdr: hdr(HeaderTerm, "-", HeaderKind, KindBatch, HeaderSeq, "1"), data: enc}, batch("1")},
			want: "batch e0 f1 #1 b0 (100 rows)"},
		{name: "channels are separate", msgs: []wireMsg{batch("1"), {edge: 1, hdr: hdr(HeaderKind, KindBatch, HeaderSeq, "1"), data: enc}, batch("2")},
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

// FuzzDemux feeds the receiver arbitrary headers and payloads after a valid
// start: it must never panic, and a batch it delivers must be whole.
func FuzzDemux(f *testing.F) {
	enc := row.AppendBatch(nil, everyTypeRows(f))
	f.Add(KindBatch, "2", "", "", enc)
	f.Add(KindBatch, "2", "0/2", "1", enc[:20])
	f.Add(KindBatch, "2", "1/2", "", enc[20:])
	f.Add(KindEnd, "1", "", "", []byte(nil))
	f.Add(KindBarrier, "1", "", "5", []byte(nil))
	f.Add(KindBatch, "-1", "9999999/1", "x", []byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, kind, seq, part, barrier string, data []byte) {
		var c collector
		d := newDemux(scope, c.deliver, c.onError)
		subject, _ := Subject(DefaultPrefix, scope, 0, 0)
		first := nats.Header{}
		for k, v := range hdr(HeaderKind, KindBatch, HeaderSeq, "1", HeaderPart, "0/2") {
			first.Set(k, v)
		}
		d.handle(subject, first, enc[:7])
		h := nats.Header{}
		for k, v := range hdr(HeaderKind, kind, HeaderSeq, seq, HeaderPart, part, HeaderBarrier, barrier, HeaderType, "checkpoint") {
			h.Set(k, v)
		}
		d.handle(subject, h, data)
		d.handle(subject, h, data)
		got, _ := c.snapshot()
		for _, m := range got {
			_ = describe(m) // every delivered batch has rows
		}
	})
}
