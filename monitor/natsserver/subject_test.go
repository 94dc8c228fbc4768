package natsserver

import "testing"

func TestValidSubject(t *testing.T) {
	for _, c := range []struct {
		s        string
		sub, pub bool
	}{
		{"a", true, true},
		{"a.b.c", true, true},
		{"stactor.local.tap.job-1.v3", true, true},
		{"a.*.c", true, false},
		{"a.>", true, false},
		{">", true, false},
		{"*", true, false},
		{"a*.b>", true, true}, // literals, as nats-server has them
		{"a.>.c", false, false},
		{"", false, false},
		{".a", false, false},
		{"a.", false, false},
		{"a..b", false, false},
	} {
		if got := validSubject(c.s, true); got != c.sub {
			t.Errorf("validSubject(%q, wildcards) = %v, want %v", c.s, got, c.sub)
		}
		if got := validSubject(c.s, false); got != c.pub {
			t.Errorf("validSubject(%q, no wildcards) = %v, want %v", c.s, got, c.pub)
		}
	}
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, subject string
		want             bool
	}{
		{"a", "a", true},
		{"a", "b", false},
		{"a", "a.b", false},
		{"a.b", "a", false},
		{"a.*", "a.b", true},
		{"a.*", "a", false},
		{"a.*", "a.b.c", false},
		{"*.b", "a.b", true},
		{"a.>", "a.b", true},
		{"a.>", "a.b.c", true},
		{"a.>", "a", false},
		{">", "a", true},
		{">", "a.b.c", true},
		{"*", "a", true},
		{"*", "a.b", false},
		{"a.*.c", "a.b.c", true},
		{"a.*.c", "a.b.d", false},
		{"a.*.>", "a.b.c.d", true},
		{"a.*.>", "a.b", false},
		{"ab", "a", false},
		{"a", "ab", false},
		{"a.bc", "a.b", false},
	} {
		if got := matches(c.pattern, c.subject); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.pattern, c.subject, got, c.want)
		}
	}
}
