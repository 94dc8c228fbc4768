package all

import (
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors"
)

// TestDeclared: every source and sink declares its delivery guarantee,
// the summary leading with its best one, and every option a plugin takes
// has a line of documentation (`stactor plugins NAME` prints it).
func TestDeclared(t *testing.T) {
	for _, p := range connectors.Plugins() {
		if p.Kind != "transform" {
			d := p.Delivery
			if d.Summary == "" {
				t.Errorf("%s %s declares no delivery guarantee", p.Kind, p.Name)
			} else if !strings.HasPrefix(d.Summary, d.Best.String()) {
				t.Errorf("%s %s: summary %q does not lead with its best guarantee %s", p.Kind, p.Name, d.Summary, d.Best)
			}
		}
		for _, o := range p.Options {
			if strings.TrimSpace(o.Doc) == "" {
				t.Errorf("%s %s: option %s has no Doc", p.Kind, p.Name, o.Key)
			}
		}
	}
}
