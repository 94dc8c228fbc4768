package localfile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stactor/stactor/storage"
)

// maxNameLen bounds an escaped job id or state name so that it, with a
// temp-file prefix and suffix, stays under the usual 255-byte file name limit.
const maxNameLen = 200

// escapeName maps a job id or state name to one path element that cannot
// leave its directory: bytes other than letters, digits, '-', '_' and a '.'
// that is not the first byte become %XX. So "a/b" is "a%2Fb", ".." is
// "%2E.", and no escaped name starts with '.', which keeps temp files
// (".tmp-...") apart. The mapping is one-to-one, so Jobs can undo it.
//
// Letters keep their case: on a case-insensitive file system (macOS,
// Windows defaults) jobs "A" and "a" would share a directory; LoadJob
// notices that, since job.pb records the exact id.
func escapeName(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("%w: empty name", storage.ErrInvalid)
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if plain(c) || (c == '.' && i > 0) {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
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

// unescapeName inverts escapeName; ok is false for anything escapeName
// would not have produced (so stray files and temp files are ignored).
func unescapeName(e string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(e); i++ {
		if e[i] != '%' {
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

// parseCount parses a non-negative decimal number written by
// strconv.FormatInt, rejecting signs and leading zeros so that one number
// has one spelling (and one file).
func parseCount(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || strconv.FormatInt(v, 10) != s {
		return 0, false
	}
	return v, true
}

// A handle names a state blob relative to its job's directory, always with
// '/': "pipeline-<p>/state/<id>/<attempt>-<escaped name>.pb".
type handle struct {
	pipeline int
	id       int64
	attempt  int
	name     string // escaped
}

func (h handle) String() string {
	return fmt.Sprintf("pipeline-%d/state/%d/%s", h.pipeline, h.id, h.file())
}

func (h handle) file() string { return fmt.Sprintf("%d-%s.pb", h.attempt, h.name) }

// parseHandle accepts exactly the handles String produces, so a handle from
// elsewhere cannot point outside the job's state directories.
func parseHandle(s string) (handle, error) {
	bad := func() (handle, error) {
		return handle{}, fmt.Errorf("%w: %q is not a state handle of this store", storage.ErrInvalid, s)
	}
	parts := strings.Split(s, "/")
	if len(parts) != 4 || parts[1] != "state" {
		return bad()
	}
	p, ok := parsePipelineDir(parts[0])
	if !ok {
		return bad()
	}
	id, ok := parseCount(parts[2])
	if !ok {
		return bad()
	}
	h, ok := parseStateFile(parts[3])
	if !ok {
		return bad()
	}
	h.pipeline, h.id = p, id
	return h, nil
}

// parseStateFile parses "<attempt>-<escaped name>.pb".
func parseStateFile(f string) (handle, bool) {
	base, ok := strings.CutSuffix(f, ".pb")
	if !ok {
		return handle{}, false
	}
	a, name, ok := strings.Cut(base, "-")
	if !ok {
		return handle{}, false
	}
	attempt, ok := parseCount(a)
	if !ok || attempt > maxInt32 {
		return handle{}, false
	}
	if _, ok := unescapeName(name); !ok {
		return handle{}, false
	}
	return handle{attempt: int(attempt), name: name}, true
}

const maxInt32 = 1<<31 - 1

func pipelineDir(p int) string { return "pipeline-" + strconv.Itoa(p) }

func parsePipelineDir(s string) (int, bool) {
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

// completedName is a completed checkpoint's file name; 20 digits hold any
// int64 and make name order id order.
func completedName(id int64) string { return fmt.Sprintf("%020d.ckpt", id) }

func parseCompletedName(s string) (int64, bool) {
	n, ok := strings.CutSuffix(s, ".ckpt")
	if !ok || len(n) != 20 {
		return 0, false
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil || v < 0 || completedName(v) != s {
		return 0, false
	}
	return v, true
}
