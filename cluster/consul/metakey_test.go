package consul

import (
	"regexp"
	"strings"
	"testing"
)

// ValidMetaKey accepts what the regexp it stands for accepts.
func TestValidMetaKeyAsItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)
	for _, k := range []string{"", "tag_zone", "a", "tag_rack-B_2", "tag_a.b", "a*", "a>", "a/b", "a b", "a\n",
		"é", "-", "_", "0", "Z9", strings.Repeat("x", 128), strings.Repeat("x", 129), strings.Repeat("-", 128) + "."} {
		if got, want := ValidMetaKey(k), re.MatchString(k); got != want {
			t.Errorf("ValidMetaKey(%q) = %v, the regexp says %v", k, got, want)
		}
	}
}
