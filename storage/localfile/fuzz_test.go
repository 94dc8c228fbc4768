package localfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage/internal/names"
)

// FuzzCheckpointFile puts bytes from outside (a corrupted or truncated
// disk, a copied file) as the newest completed checkpoint and restores
// through Latest and List: the checkpoint is used only when it decodes
// intact and is the one its name says; otherwise it is skipped with a
// warning. Never a panic.
func FuzzCheckpointFile(f *testing.F) {
	good := &messages.CompletedCheckpoint{JobId: "j", Pipeline: 1, Id: 2, Attempt: 0, Type: "CHECKPOINT",
		Tasks: []*messages.TaskStateRef{{Chain: 1, Subtask: 0, Handle: "x"}}}
	b, _ := proto.Marshal(good)
	f.Add(append(frameHeader(b), b...))
	f.Add(frameHeader(b))
	f.Add(append(frameHeader(b), b[:len(b)/2]...))
	f.Add([]byte{})
	other, _ := proto.Marshal(&messages.CompletedCheckpoint{JobId: "k", Pipeline: 1, Id: 2})
	f.Add(append(frameHeader(other), other...))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := New(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		cdir := completedDir(filepath.Join(s.jobDir("j"), names.Pipeline(1)))
		if err := os.MkdirAll(cdir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(cdir, completedName(2)), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cp, warns, err := s.Latest("j", 1)
		if err != nil {
			t.Fatalf("Latest: %v", err)
		}
		switch {
		case cp != nil && (cp.JobId != "j" || cp.Pipeline != 1 || cp.Id != 2 || len(warns) != 0):
			t.Fatalf("Latest used %v (warnings %v)", cp, warns)
		case cp == nil && (len(warns) != 1 || !strings.Contains(warns[0], "checkpoint 2 of job j pipeline 1 is corrupt")):
			t.Fatalf("skipped without the warning: %v", warns)
		}
		l, err := s.List("j")
		if err != nil || (cp == nil) != (len(l) == 0) {
			t.Fatalf("List = %v, %v; Latest = %v", l, err, cp)
		}
	})
}
