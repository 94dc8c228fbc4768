package jetstream

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stactor/stactor/storage"
)

// maxNameLen bounds an escaped job id or state name, so that a key or an
// object name of a few of them stays far below NATS's subject limits.
const maxNameLen = 200

const maxInt32 = 1<<31 - 1

// escapeName maps a job id or state name to one token that is valid in a KV
// key and in a NATS subject: letters, digits, '-' and '_' stay, every other
// byte (the '.' that separates tokens, '=', '/', spaces, UTF-8) becomes =XX.
// The mapping is one-to-one, so Jobs can undo it.
func escapeName(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty name", storage.ErrInvalid)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; plain(c) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	if b.Len() > maxNameLen {
		return "", fmt.Errorf("%w: name %.40q... is too long (%d bytes escaped, at most %d)", storage.ErrInvalid, s, b.Len(), maxNameLen)
	}
	return b.String(), nil
}

func plain(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// unescapeName inverts escapeName; ok is false for anything escapeName would
// not have produced.
func unescapeName(e string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(e); i++ {
		if e[i] != '=' {
			b.WriteByte(e[i])
			continue
		}
		if i+2 >= len(e) {
			return "", false
		}
		v, err := strconv.ParseUint(e[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	s := b.String()
	if again, err := escapeName(s); err != nil || again != e {
		return "", false
	}
	return s, true
}

// escJob escapes a job id.
func escJob(job string) (string, error) {
	e, err := escapeName(job)
	if err != nil {
		return "", fmt.Errorf("job id: %w", err)
	}
	return e, nil
}

func checkPipeline(p int) error {
	if p < 0 || p > maxInt32 {
		return fmt.Errorf("%w: pipeline %d", storage.ErrInvalid, p)
	}
	return nil
}

// parseCount parses a non-negative decimal number written by
// strconv.FormatInt, rejecting signs and leading zeros so that one number
// has one spelling.
func parseCount(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

func pipelineToken(p int) string { return "pipeline-" + strconv.Itoa(p) }

func parsePipelineToken(s string) (int, bool) {
	n, ok := strings.CutPrefix(s, "pipeline-")
	if !ok {
		return 0, false
	}
	v, ok := parseCount(n)
	if !ok || v > maxInt32 {
		return 0, false
	}
	return int(v), true
}

// Keys of the meta bucket; job is escaped, so each part is one token.

// registerKey is the pipeline's register (register.go).
func registerKey(job string, p int) string { return job + "." + pipelineToken(p) }

// jobKey marks that the job has a spec in the object store.
func jobKey(job string) string { return job + ".job" }

// markersOf matches every object marker of a pipeline.
func markersOf(job string, p int) string { return registerKey(job, p) + ".>" }

func stateMarker(job string, h handle) string {
	return fmt.Sprintf("%s.state.%d.%d.%s", registerKey(job, h.pipeline), h.id, h.attempt, h.name)
}

func completedMarker(job string, p int, id int64) string {
	return fmt.Sprintf("%s.completed.%d", registerKey(job, p), id)
}

// marker is an object marker parsed back from its key (the part after the
// pipeline's register key): a state blob's handle, or a completed id.
type marker struct {
	state     bool
	h         handle // when state
	completed int64  // when !state
}

func parseMarker(p int, rest string) (marker, bool) {
	parts := strings.Split(rest, ".")
	switch {
	case len(parts) == 2 && parts[0] == "completed":
		id, ok := parseCount(parts[1])
		return marker{completed: id}, ok
	case len(parts) == 4 && parts[0] == "state":
		id, ok1 := parseCount(parts[1])
		a, ok2 := parseCount(parts[2])
		_, ok3 := unescapeName(parts[3])
		if !ok1 || !ok2 || !ok3 || a > maxInt32 {
			return marker{}, false
		}
		return marker{state: true, h: handle{pipeline: p, id: id, attempt: int(a), name: parts[3]}}, true
	}
	return marker{}, false
}

// Object names in the checkpoints bucket, following localfile's layout.

func jobObject(job string) string { return job + "/job" }

func stateObject(job string, h handle) string { return job + "/" + h.String() }

// completedObject: 20 digits hold any int64 and make name order id order.
func completedObject(job string, p int, id int64) string {
	return fmt.Sprintf("%s/%s/completed/%020d", job, pipelineToken(p), id)
}

// A handle names a state blob relative to its job:
// "pipeline-<p>/state/<id>/<attempt>-<escaped name>".
type handle struct {
	pipeline int
	id       int64
	attempt  int
	name     string // escaped
}

func (h handle) String() string {
	return fmt.Sprintf("%s/state/%d/%d-%s", pipelineToken(h.pipeline), h.id, h.attempt, h.name)
}

// parseHandle accepts exactly the handles String produces.
func parseHandle(s string) (handle, error) {
	bad := func() (handle, error) {
		return handle{}, fmt.Errorf("%w: %q is not a state handle of this store", storage.ErrInvalid, s)
	}
	parts := strings.Split(s, "/")
	if len(parts) != 4 || parts[1] != "state" {
		return bad()
	}
	p, ok := parsePipelineToken(parts[0])
	if !ok {
		return bad()
	}
	id, ok := parseCount(parts[2])
	if !ok {
		return bad()
	}
	a, name, ok := strings.Cut(parts[3], "-")
	if !ok {
		return bad()
	}
	attempt, ok := parseCount(a)
	if !ok || attempt > maxInt32 {
		return bad()
	}
	if _, ok := unescapeName(name); !ok {
		return bad()
	}
	return handle{pipeline: p, id: id, attempt: int(attempt), name: name}, nil
}
