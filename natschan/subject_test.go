package natschan

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestSubject(t *testing.T) {
	for _, tc := range []struct {
		prefix string
		scope  Scope
		edge   int32
		to     int32
		want   string // "" for an error
	}{
		{"stactor", Scope{"job-1", 0, 0, 2}, 3, 4, "stactor.data.job-1.0.0.2.3.4"},
		{"stactor", Scope{"job-1", 4567, 3, 2}, 3, 4, "stactor.data.job-1.4567.3.2.3.4"},
		{"acme.etl", Scope{"Job_2", 0, 7, 0}, 0, 0, "acme.etl.data.Job_2.0.7.0.0.0"},
		{"stactor", Scope{"a.b", 0, 1, 1}, 1, 1, "stactor.data.a%2Eb.0.1.1.1.1"},
		{"stactor", Scope{"*", 0, 1, 1}, 1, 1, "stactor.data.%2A.0.1.1.1.1"},
		{"stactor", Scope{">", 0, 1, 1}, 1, 1, "stactor.data.%3E.0.1.1.1.1"},
		{"stactor", Scope{"a b\tc\r\n", 0, 1, 1}, 1, 1, "stactor.data.a%20b%09c%0D%0A.0.1.1.1.1"},
		{"stactor", Scope{"50%", 0, 1, 1}, 1, 1, "stactor.data.50%25.0.1.1.1.1"},
		{"stactor", Scope{"jöb", 0, 1, 1}, 1, 1, "stactor.data.j%C3%B6b.0.1.1.1.1"},
		{"stactor", Scope{"", 0, 1, 1}, 1, 1, ""},
		{"stactor", Scope{"j", 0, -1, 1}, 1, 1, ""},
		{"stactor", Scope{"j", 0, 1, -1}, 1, 1, ""},
		{"stactor", Scope{"j", 0, 1, 1}, -1, 1, ""},
		{"stactor", Scope{"j", 0, 1, 1}, 1, -1, ""},
		{"", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"a..b", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"a.", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"a.*", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"a.>", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"$SYS", Scope{"j", 0, 1, 1}, 1, 1, ""},
		{"a b", Scope{"j", 0, 1, 1}, 1, 1, ""},
	} {
		got, err := Subject(tc.prefix, tc.scope, tc.edge, tc.to)
		if tc.want == "" {
			if !errors.Is(err, ErrSubject) {
				t.Errorf("Subject(%q, %+v, %d, %d) = %q, %v; want ErrSubject", tc.prefix, tc.scope, tc.edge, tc.to, got, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Subject(%q, %+v, %d, %d) = %q, %v; want %q", tc.prefix, tc.scope, tc.edge, tc.to, got, err, tc.want)
		}
		if e, ok := edgeOf(got); !ok || e != tc.edge {
			t.Errorf("edgeOf(%q) = %d, %v", got, e, ok)
		}
	}
	if got, err := receiveSubject("p", Scope{"j.k", 0, 1, 2}, 3); err != nil || got != "p.data.j%2Ek.0.1.2.*.3" {
		t.Errorf("receiveSubject = %q, %v", got, err)
	}
}

// unescape inverts EscapeToken, for the fuzz test.
func unescape(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+3 > len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), true
}

// FuzzEscapeToken: any job id becomes one token of safe characters, and
// distinct ids stay distinct (the escaping can be undone).
func FuzzEscapeToken(f *testing.F) {
	for _, s := range []string{"job", "a.b", "*", ">", "%41", "a b", "日本", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := EscapeToken(s)
		for i := 0; i < len(tok); i++ {
			if !plain(tok[i]) && tok[i] != '%' {
				t.Fatalf("EscapeToken(%q) = %q has %q", s, tok, tok[i])
			}
		}
		back, ok := unescape(tok)
		if !ok || back != s {
			t.Fatalf("EscapeToken(%q) = %q, which reads back as %q", s, tok, back)
		}
		if s != "" {
			subject, err := Subject(DefaultPrefix, Scope{Job: s, Attempt: 1, Pipeline: 1}, 2, 3)
			if err != nil || strings.Count(subject, ".") != 7 {
				t.Fatalf("Subject for job %q = %q, %v", s, subject, err)
			}
		}
	})
}
