package jetstream

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/storage/internal/names"
)

// tokenNames maps a job id or state name to one token that is valid in a KV
// key and in a NATS subject: letters, digits, '-' and '_' stay, every other
// byte (the '.' that separates tokens, '=', '/', spaces, UTF-8) becomes =XX.
// The mapping is one-to-one, so Jobs can undo it. MaxLen keeps a key or an
// object name of a few of them far below NATS's subject limits.
var tokenNames = names.Escaper{
	Esc:    '=',
	Keep:   func(s string, i int) bool { return names.Plain(s[i]) },
	MaxLen: 200,
}

// Keys of the meta bucket; job is escaped, so each part is one token.

// registerKey is the pipeline's register (register.go).
func registerKey(job string, p int) string { return job + "." + names.Pipeline(p) }

// jobKey marks that the job has a spec in the object store.
func jobKey(job string) string { return job + ".job" }

// markersOf matches every object marker of a pipeline.
func markersOf(job string, p int) string { return registerKey(job, p) + ".>" }

func stateMarker(job string, h names.Handle) string {
	return fmt.Sprintf("%s.state.%d.%d.%s", registerKey(job, h.Pipeline), h.ID, h.Attempt, h.Name)
}

func completedMarker(job string, p int, id int64) string {
	return fmt.Sprintf("%s.completed.%d", registerKey(job, p), id)
}

// marker is an object marker parsed back from its key (the part after the
// pipeline's register key): a state blob's handle, or a completed id.
type marker struct {
	state     bool
	h         names.Handle // when state
	completed int64        // when !state
}

func parseMarker(p int, rest string) (marker, bool) {
	parts := strings.Split(rest, ".")
	switch {
	case len(parts) == 2 && parts[0] == "completed":
		id, ok := names.ParseCount(parts[1])
		return marker{completed: id}, ok
	case len(parts) == 4 && parts[0] == "state":
		id, ok1 := names.ParseCount(parts[1])
		a, ok2 := names.ParseCount(parts[2])
		_, ok3 := tokenNames.Unescape(parts[3])
		if !ok1 || !ok2 || !ok3 || a > names.MaxInt32 {
			return marker{}, false
		}
		return marker{state: true, h: names.Handle{Pipeline: p, ID: id, Attempt: int(a), Name: parts[3]}}, true
	}
	return marker{}, false
}

// Object names in the checkpoints bucket, following localfile's layout.

func jobObject(job string) string { return job + "/job" }

func stateObject(job string, h names.Handle) string { return job + "/" + h.String() }

// completedObject: 20 digits hold any int64 and make name order id order.
func completedObject(job string, p int, id int64) string {
	return fmt.Sprintf("%s/%s/completed/%020d", job, names.Pipeline(p), id)
}
