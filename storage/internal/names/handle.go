package names

import (
	"fmt"
	"strings"

	"github.com/stactor/stactor/storage"
)

// A Handle names a state blob relative to its job:
// "pipeline-<p>/state/<id>/<attempt>-<escaped name>", always with '/'. A
// backend may add a suffix (a file extension) of its own.
type Handle struct {
	Pipeline int
	ID       int64
	Attempt  int
	Name     string // escaped
}

func (h Handle) String() string {
	return fmt.Sprintf("%s/state/%d/%s", Pipeline(h.Pipeline), h.ID, h.Base())
}

// Base is the handle's last element: "<attempt>-<escaped name>".
func (h Handle) Base() string { return fmt.Sprintf("%d-%s", h.Attempt, h.Name) }

// ParseHandle accepts exactly the handles String produces with names e
// escaped, so a handle from elsewhere cannot point outside the job's
// states. Anything else is an error wrapping storage.ErrInvalid.
func (e Escaper) ParseHandle(s string) (Handle, error) {
	bad := func() (Handle, error) {
		return Handle{}, fmt.Errorf("%w: %q is not a state handle of this store", storage.ErrInvalid, s)
	}
	parts := strings.Split(s, "/")
	if len(parts) != 4 || parts[1] != "state" {
		return bad()
	}
	p, ok := ParsePipeline(parts[0])
	if !ok {
		return bad()
	}
	id, ok := ParseCount(parts[2])
	if !ok {
		return bad()
	}
	h, ok := e.parseBase(parts[3])
	if !ok {
		return bad()
	}
	h.Pipeline, h.ID = p, id
	return h, nil
}

// parseBase parses what Base produces.
func (e Escaper) parseBase(s string) (Handle, bool) {
	a, name, ok := strings.Cut(s, "-")
	if !ok {
		return Handle{}, false
	}
	attempt, ok := ParseCount(a)
	if !ok || attempt > MaxInt32 {
		return Handle{}, false
	}
	if _, ok := e.Unescape(name); !ok {
		return Handle{}, false
	}
	return Handle{Attempt: int(attempt), Name: name}, true
}
