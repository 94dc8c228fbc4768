package all

import (
	"testing"

	"github.com/stactor/stactor/connectors"
)

func TestRegistered(t *testing.T) {
	if _, err := connectors.LookupSource("FakeSource"); err != nil {
		t.Error(err)
	}
	for _, name := range []string{"Console", "Assert"} {
		if _, err := connectors.LookupSink(name); err != nil {
			t.Error(err)
		}
	}
}
