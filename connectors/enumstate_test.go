package connectors

import (
	"slices"
	"testing"
)

func TestEnumeratorStateRoundTrip(t *testing.T) {
	for _, c := range []struct {
		discovered bool
		splits     [][]byte
	}{{false, nil}, {true, nil}, {true, [][]byte{[]byte("a"), {}, []byte("split-2")}}} {
		d, s, err := DecodeEnumeratorState(EncodeEnumeratorState(c.discovered, c.splits))
		if err != nil || d != c.discovered || len(s) != len(c.splits) {
			t.Fatalf("round trip of %v: %v %q %v", c, d, s, err)
		}
		for i := range s {
			if !slices.Equal(s[i], c.splits[i]) {
				t.Fatalf("split %d: %q, want %q", i, s[i], c.splits[i])
			}
		}
	}
	for _, bad := range [][]byte{nil, {1}, {2, 0}, {1, 0, 5, 'a'}} {
		if _, _, err := DecodeEnumeratorState(bad); err == nil {
			t.Fatalf("%v decoded", bad)
		}
	}
}
