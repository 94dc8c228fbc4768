package sqlengine

import (
	"strings"
	"testing"
)

func TestTranslateJavaRegex(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{`a+b`, `a+b`, ""},
		{`\p{Alpha}+`, `[[:alpha:]]+`, ""},
		{`\P{Digit}`, `[[:^digit:]]`, ""},
		{`[\p{Punct}_]`, `[[:punct:]_]`, ""},
		{`[^\P{Space}]`, `[^[:^space:]]`, ""},
		{`\s+`, `[[:space:]]+`, ""},
		{`[\S]`, `[[:^space:]]`, ""},
		{`\p{IsLatin}\p{L}\pN`, `\p{Latin}\p{L}\pN`, ""},
		{`\Q\s[\E\s`, `\Q\s[\E[[:space:]]`, ""},
		{`[]a]`, `[]a]`, ""},
		{`[^]a]\[`, `[^]a]\[`, ""},
		{`\\s`, `\\s`, ""},
		{`[a-z&&[^aeiou]]`, "", "character class intersection"},
		{`[a-c[x-z]]`, "", "a character class inside a character class"},
	} {
		got, err := translateJavaRegex(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.in, err, tc.err)
			}
		case err != nil || got != tc.want:
			t.Errorf("%s: got %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

// FuzzTranslateJavaRegex feeds arbitrary patterns through the rewrite: it
// never panics, and what it returns RE2 compiles or refuses with an error.
func FuzzTranslateJavaRegex(f *testing.F) {
	for _, s := range []string{`\p{Alpha}+\s`, `[\P{Punct}&&x]`, `\Q[\E`, `[]a\]`, `\`, `[`, `\p{`, `(?<n>a)\k<n>`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if _, err := javaRegex(p, "imn"); err != nil && err.Error() == "" {
			t.Fatalf("%q: empty error", p)
		}
	})
}
