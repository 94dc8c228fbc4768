package jetstream

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
	"github.com/stactor/stactor/storage/internal/names/namestest"
)

// validToken: what a KV key token and a subject token may hold.
func validToken(e string) bool {
	if e == "" {
		return false
	}
	for i := 0; i < len(e); i++ {
		if c := e[i]; !names.Plain(c) && c != '=' {
			return false
		}
	}
	return true
}

// TestNamesAreTokens: escaped names are single tokens; '.' separates
// tokens, so it is escaped even inside a name.
func TestNamesAreTokens(t *testing.T) { namestest.Run(t, tokenNames, validToken, "a.b", "a*") }

func TestRegisterRoundTrip(t *testing.T) {
	for _, r := range []*register{
		newRegister(),
		{attempt: 3, ckptAttempt: 2, id: 1 << 40, term: 1 << 50, completed: []int64{0, 1, 7, 1 << 40}},
	} {
		got, err := decodeRegister(r.encode())
		must(t, err)
		if got.attempt != r.attempt || got.ckptAttempt != r.ckptAttempt || got.id != r.id || got.term != r.term || !slices.Equal(got.completed, r.completed) {
			t.Fatalf("decode(encode(%+v)) = %+v", r, got)
		}
	}
	// A version 1 register (before terms) still reads, with term 0.
	v1 := []byte{1}
	v1 = binary.AppendVarint(v1, 4)
	v1 = binary.AppendVarint(v1, 3)
	v1 = binary.AppendUvarint(v1, 12)
	v1 = binary.AppendUvarint(v1, 2)
	v1 = binary.AppendUvarint(v1, 5)
	v1 = binary.AppendUvarint(v1, 7)
	got, err := decodeRegister(frame(v1))
	must(t, err)
	if got.attempt != 4 || got.ckptAttempt != 3 || got.id != 12 || got.term != 0 || !slices.Equal(got.completed, []int64{5, 12}) {
		t.Fatalf("version 1 register decoded as %+v", got)
	}
}

func FuzzEscapeName(f *testing.F) { namestest.Fuzz(f, tokenNames, validToken) }

func FuzzParseHandle(f *testing.F) {
	for _, s := range []string{"pipeline-1/state/12/0-task-1-0", "pipeline-1/state/12/../../x", "../x", "pipeline-01/state/1/0-a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := tokenNames.ParseHandle(s)
		if err != nil {
			return
		}
		if h.String() != s {
			t.Fatalf("tokenNames.ParseHandle(%q) re-formats as %q", s, h.String())
		}
		if m, ok := parseMarker(h.Pipeline, strings.TrimPrefix(stateMarker("j", h), registerKey("j", h.Pipeline)+".")); !ok || m.h != h {
			t.Fatalf("the marker of %q parses as %+v, %v", s, m, ok)
		}
	})
}

func FuzzDecodeRegister(f *testing.F) {
	f.Add((&register{attempt: 1, ckptAttempt: 0, id: 9, completed: []int64{3, 9}}).encode())
	f.Add(newRegister().encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeRegister(b)
		if err != nil {
			if !errors.Is(err, storage.ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		for i := 1; i < len(r.completed); i++ {
			if r.completed[i] <= r.completed[i-1] {
				t.Fatalf("completed %v is not strictly ascending", r.completed)
			}
		}
		again, err := decodeRegister(r.encode())
		if err != nil || !slices.Equal(again.completed, r.completed) {
			t.Fatalf("re-encoding %+v: %+v, %v", r, again, err)
		}
	})
}
