package console

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stactor/stactor/connectors/conformance"
	"github.com/stactor/stactor/row"
)

// printed collects what every Console writer prints during the test.
type printed struct {
	sync.Mutex
	buf bytes.Buffer
}

func (p *printed) Write(b []byte) (int, error) {
	p.Lock()
	defer p.Unlock()
	return p.buf.Write(b)
}

// ids are the ids (the first field) of the lines printed so far.
func (p *printed) ids() ([][]any, error) {
	p.Lock()
	defer p.Unlock()
	var out [][]any
	for _, line := range strings.Split(strings.TrimRight(p.buf.String(), "\n"), "\n") {
		if line == "" {
			continue
		}
		_, fields, ok := strings.Cut(line, "SeaTunnelRow#kind=INSERT : ")
		if !ok {
			return nil, fmt.Errorf("not a Console line: %q", line)
		}
		id, _, _ := strings.Cut(fields, ", ")
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %q: %w", line, err)
		}
		out = append(out, []any{n})
	}
	return out, nil
}

// Console prints every row once, as it is written (it commits nothing):
// the suite checks each row's id is printed exactly once.
func TestConformance(t *testing.T) {
	p := &printed{}
	defer setOutput(p)()
	conformance.RunSink(t, conformance.Sink{
		Factory: Factory,
		Types:   conformance.AllTypes(),
		IDsOnly: true,
		Target: func(string, *row.Schema) (string, func() ([][]any, error), error) {
			p.Lock()
			p.buf.Reset()
			p.Unlock()
			return "", p.ids, nil
		},
		BadOptions: []conformance.BadOption{
			{Name: "NegativeDelay", Body: "log.print.delay.ms = -1", Error: "must not be negative"},
			{Name: "NotABool", Body: "log.print.data = maybe", Error: "log.print.data"},
		},
	})
}
