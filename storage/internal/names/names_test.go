package names

import (
	"errors"
	"testing"

	"github.com/stactor/stactor/storage"
)

var plainNames = Escaper{Esc: '=', Keep: func(s string, i int) bool { return Plain(s[i]) }, MaxLen: 20}

func TestEscape(t *testing.T) {
	escaped := map[string]string{"a": "a", "A-b_c9": "A-b_c9", "a.b": "a=2Eb", "=": "=3D", "日": "=E6=97=A5", "\x00": "=00"}
	for in, want := range escaped {
		got, err := plainNames.Escape(in)
		if err != nil || got != want {
			t.Fatalf("Escape(%q) = %q, %v; want %q", in, got, err, want)
		}
		if back, ok := plainNames.Unescape(got); !ok || back != in {
			t.Fatalf("Unescape(%q) = %q, %v", got, back, ok)
		}
	}
	for _, in := range []string{"", "aaaaaaaaaaaaaaaaaaaaa", "......."} {
		if _, err := plainNames.Escape(in); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("Escape(%q): %v, want ErrInvalid", in, err)
		}
	}
	if _, err := plainNames.EscapeJob(""); err == nil || err.Error() != "job id: invalid argument: empty name" {
		t.Fatalf("EscapeJob(\"\"): %v", err)
	}
}

func TestParseCount(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "7": 7, "9223372036854775807": 1<<63 - 1} {
		if v, ok := ParseCount(s); !ok || v != want {
			t.Fatalf("ParseCount(%q) = %d, %v", s, v, ok)
		}
	}
	for _, s := range []string{"", "-1", "+1", "01", "00", " 1", "1x", "9223372036854775808"} {
		if v, ok := ParseCount(s); ok {
			t.Fatalf("ParseCount(%q) = %d accepted a second spelling", s, v)
		}
	}
}

func TestPipeline(t *testing.T) {
	for _, p := range []int{0, 3, MaxInt32} {
		if got, ok := ParsePipeline(Pipeline(p)); !ok || got != p {
			t.Fatalf("ParsePipeline(%q) = %d, %v", Pipeline(p), got, ok)
		}
		if err := CheckPipeline(p); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range []string{"pipeline-", "pipeline-01", "pipeline--1", "pipeline-2147483648", "Pipeline-1", "1"} {
		if p, ok := ParsePipeline(s); ok {
			t.Fatalf("ParsePipeline(%q) = %d", s, p)
		}
	}
	for _, p := range []int{-1, MaxInt32 + 1} {
		if err := CheckPipeline(p); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("CheckPipeline(%d): %v", p, err)
		}
	}
}

func TestHandle(t *testing.T) {
	h := Handle{Pipeline: 1, ID: 12, Attempt: 3, Name: "task-1=2E0"}
	if s := h.String(); s != "pipeline-1/state/12/3-task-1=2E0" {
		t.Fatalf("String = %q", s)
	}
	if got, err := plainNames.ParseHandle(h.String()); err != nil || got != h {
		t.Fatalf("ParseHandle(%q) = %+v, %v", h.String(), got, err)
	}
	for _, s := range []string{
		"", "x", "../x", "pipeline-1/state/12", "pipeline-1/state/12/3-a/b", "pipeline-1/states/12/3-a",
		"pipeline-01/state/12/3-a", "pipeline-1/state/012/3-a", "pipeline-1/state/12/03-a", "pipeline-1/state/12/3",
		"pipeline-1/state/12/2147483648-a", "pipeline-1/state/12/3-a.b", "pipeline-1/state/12/3-", "pipeline-1/state/12/../../x",
	} {
		if got, err := plainNames.ParseHandle(s); !errors.Is(err, storage.ErrInvalid) {
			t.Fatalf("ParseHandle(%q) = %+v, %v; want ErrInvalid", s, got, err)
		}
	}
}
