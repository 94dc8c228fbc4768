package httpapi

import (
	"regexp"
	"strings"
	"testing"
)

// validJobID accepts what the regexp it stands for accepts.
func TestValidJobIDAsItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	for _, id := range []string{"", "1733100000000000", "a", "job_1-B", "a.b", "a*", "a>", "a/b", "a b", "a\n",
		"é", "-", "_", strings.Repeat("x", 128), strings.Repeat("x", 129), strings.Repeat("-", 128) + "."} {
		if got, want := validJobID(id), re.MatchString(id); got != want {
			t.Errorf("validJobID(%q) = %v, the regexp says %v", id, got, want)
		}
	}
}
