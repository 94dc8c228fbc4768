package localfile

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
)

// fileNames maps a job id or state name to one path element that cannot
// leave its directory: bytes other than letters, digits, '-', '_' and a '.'
// that is not the first byte become %XX. So "a/b" is "a%2Fb", ".." is
// "%2E.", and no escaped name starts with '.', which keeps temp files
// (".tmp-...") apart. The mapping is one-to-one, so Jobs can undo it, and
// Unescape passes over stray files and temp files. MaxLen keeps a name,
// with a temp-file prefix and suffix, under the usual 255-byte limit.
//
// Letters keep their case: on a case-insensitive file system (macOS,
// Windows defaults) jobs "A" and "a" would share a directory; LoadJob
// notices that, since job.pb records the exact id.
var fileNames = names.Escaper{
	Esc:    '%',
	Keep:   func(s string, i int) bool { return names.Plain(s[i]) || (s[i] == '.' && i > 0) },
	MaxLen: 200,
}

// A state blob's handle is its names.Handle with the file's ".pb":
// "pipeline-<p>/state/<id>/<attempt>-<escaped name>.pb", relative to its
// job's directory.
const stateExt = ".pb"

func formatHandle(h names.Handle) string { return h.String() + stateExt }

// stateFile is the blob's file name in its state directory.
func stateFile(h names.Handle) string { return h.Base() + stateExt }

// parseHandle accepts exactly the handles formatHandle produces, so a
// handle from elsewhere cannot point outside the job's state directories.
func parseHandle(s string) (names.Handle, error) {
	base, ok := strings.CutSuffix(s, stateExt)
	h, err := fileNames.ParseHandle(base)
	if !ok || err != nil {
		return names.Handle{}, fmt.Errorf("%w: %q is not a state handle of this store", storage.ErrInvalid, s)
	}
	return h, nil
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
