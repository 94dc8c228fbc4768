// Package namestest is for tests: it checks a storage backend's
// names.Escaper against the contract every backend relies on — escaping is
// one-to-one, Unescape takes back only what Escape makes, and every escaped
// name is valid where the backend puts it.
package namestest

import (
	"errors"
	"strings"
	"testing"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// tricky are names that need escaping somewhere: separators of paths and
// subjects, wildcards, escape characters, bytes outside ASCII.
var tricky = []string{"a", "A-b_c", "x.y", ".", "..", "/", "a/b", "a\\b", "=", "=2E", "%", "%2F", "日本", "\x00", "*", ">", "a b"}

// Run escapes tricky names with e and checks that each is valid (one
// element of the backend's namespace) and unescapes back; that Unescape
// rejects malformed escapes and every one of notEscaped (strings this
// backend's Escape never makes); and that an overlong name is invalid.
func Run(t *testing.T, e names.Escaper, valid func(string) bool, notEscaped ...string) {
	t.Helper()
	for _, s := range tricky {
		esc, err := e.Escape(s)
		if err != nil {
			t.Fatalf("escape(%q): %v", s, err)
		}
		check(t, e, valid, s, esc)
	}
	x := string(e.Esc)
	for _, esc := range append([]string{"", x + "2f", x + "2", "a" + x, x + "41", x + "ZZ"}, notEscaped...) {
		if got, ok := e.Unescape(esc); ok {
			t.Fatalf("unescape(%q) = %q accepted a name escape never makes", esc, got)
		}
	}
	if _, err := e.Escape(strings.Repeat("/", e.MaxLen/3+1)); !errors.Is(err, storage.ErrInvalid) {
		t.Fatalf("overlong name: %v", err)
	}
}

// Fuzz checks what Run checks of tricky names for any name.
func Fuzz(f *testing.F, e names.Escaper, valid func(string) bool) {
	for _, s := range tricky {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if esc, err := e.Escape(s); err == nil {
			check(t, e, valid, s, esc)
		}
	})
}

func check(t *testing.T, e names.Escaper, valid func(string) bool, s, esc string) {
	t.Helper()
	if !valid(esc) {
		t.Fatalf("escape(%q) = %q is not valid where the backend puts it", s, esc)
	}
	if got, ok := e.Unescape(esc); !ok || got != s {
		t.Fatalf("unescape(escape(%q)) = %q, %v", s, got, ok)
	}
}
