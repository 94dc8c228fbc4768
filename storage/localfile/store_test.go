package localfile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/internal/names"
	"github.com/stactor/stactor/storage/internal/names/namestest"
	"github.com/stactor/stactor/storage/storagetest"
)

func open(t testing.TB, root string, opts ...Option) *Store {
	t.Helper()
	s, err := New(root, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestConformance(t *testing.T) {
	storagetest.Run(t, func(t *testing.T) func() storage.Storage {
		root := t.TempDir()
		return func() storage.Storage { return open(t, root) }
	})
}

// The same suite with small id blocks: with one id per block every id is a
// write of the ids file; with three, Stores on one root take turns
// mid-block.
func TestConformanceIDBlocks(t *testing.T) {
	for _, n := range []int64{1, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			storagetest.Run(t, func(t *testing.T) func() storage.Storage {
				root := t.TempDir()
				return func() storage.Storage { return open(t, root, WithIDBlock(n)) }
			})
		})
	}
}

func TestLayout(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	must(t, s.SaveJob(&messages.JobSpec{JobId: "nightly"}))
	a, err := s.NextAttempt("nightly", 1, 0)
	must(t, err)
	id, err := s.NextCheckpointID(context.Background(), "nightly", 1)
	must(t, err)
	h, err := s.WriteState("nightly", 1, a, id, "task-2-0", []byte("x"))
	must(t, err)
	if h != "pipeline-1/state/1/0-task-2-0.pb" {
		t.Fatalf("handle %s", h)
	}
	must(t, s.Complete(context.Background(), storagetest.Checkpoint("nightly", 1, id, a, h)))
	var files []string
	must(t, filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	}))
	want := []string{
		"nightly/job.pb",
		"nightly/pipeline-1/attempt",
		"nightly/pipeline-1/completed/00000000000000000001.ckpt",
		"nightly/pipeline-1/ids",
		"nightly/pipeline-1/lock",
		"nightly/pipeline-1/state/1/0-task-2-0.pb",
		"nightly/pipeline-1/term",
		"nightly/pipeline-1.completed",
	}
	if !slices.Equal(files, want) {
		t.Fatalf("files:\n%s\nwant:\n%s", strings.Join(files, "\n"), strings.Join(want, "\n"))
	}
	b, err := os.ReadFile(filepath.Join(root, "nightly/pipeline-1/completed/00000000000000000001.ckpt"))
	must(t, err)
	if !strings.HasPrefix(string(b), magic) {
		t.Fatalf("metadata starts %q", b[:8])
	}
}

// completeN completes checkpoints 1..n of job pipeline 0 and returns the
// path of each metadata file.
func completeN(t *testing.T, s *Store, job string, n int) map[int64]string {
	t.Helper()
	paths := map[int64]string{}
	for id := int64(1); id <= int64(n); id++ {
		h, err := s.WriteState(job, 0, 0, id, "task-1-0", []byte{byte(id)})
		must(t, err)
		must(t, s.Complete(context.Background(), storagetest.Checkpoint(job, 0, id, 0, h)))
		paths[id] = filepath.Join(s.Root(), job, "pipeline-0", "completed", completedName(id))
	}
	return paths
}

// TestLatestSkipsCorrupt damages the newest metadata file in every way one
// byte can be damaged — each byte flipped, each length truncated — and
// Latest must fall back to the previous checkpoint and say so.
func TestLatestSkipsCorrupt(t *testing.T) {
	s := open(t, t.TempDir())
	const job = "j"
	paths := completeN(t, s, job, 12)
	orig, err := os.ReadFile(paths[12])
	must(t, err)

	check := func(what string) {
		t.Helper()
		cp, warns, err := s.Latest(job, 0)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if cp.GetId() != 11 {
			t.Fatalf("%s: Latest = %d, want 11", what, cp.GetId())
		}
		if len(warns) != 1 || !strings.Contains(warns[0], "checkpoint 12 of job j pipeline 0 is corrupt (") || !strings.HasSuffix(warns[0], "; using checkpoint 11") {
			t.Fatalf("%s: warnings %q", what, warns)
		}
	}
	for i := range orig {
		b := slices.Clone(orig)
		b[i] ^= 0x10
		must(t, os.WriteFile(paths[12], b, 0o600))
		check(fmt.Sprintf("byte %d flipped", i))
	}
	for n := range len(orig) {
		must(t, os.WriteFile(paths[12], orig[:n], 0o600))
		check(fmt.Sprintf("truncated to %d bytes", n))
	}
	b := slices.Clone(orig)
	b[len(b)-1] ^= 1
	must(t, os.WriteFile(paths[12], b, 0o600))
	_, warns, _ := s.Latest(job, 0)
	if !strings.Contains(warns[0], "(checksum mismatch)") {
		t.Fatalf("warning %q", warns[0])
	}
	// A well-formed file of another checkpoint (copied over) is corrupt too.
	other, err := os.ReadFile(paths[10])
	must(t, err)
	must(t, os.WriteFile(paths[12], other, 0o600))
	check("checkpoint 10 copied over 12")

	// List leaves it out.
	l, err := s.List(job)
	must(t, err)
	if len(l) != 11 || l[10].Id != 11 {
		t.Fatalf("List has %d checkpoints, last %d", len(l), l[len(l)-1].Id)
	}
	// Once restored it is whole again.
	must(t, os.WriteFile(paths[12], orig, 0o600))
	cp, warns, err := s.Latest(job, 0)
	if err != nil || cp.GetId() != 12 || len(warns) != 0 {
		t.Fatalf("repaired: %d %q %v", cp.GetId(), warns, err)
	}
}

func TestLatestSkipsSeveralCorrupt(t *testing.T) {
	s := open(t, t.TempDir())
	paths := completeN(t, s, "j", 4)
	must(t, os.Truncate(paths[4], 30))
	must(t, os.WriteFile(paths[3], []byte("garbage"), 0o600))
	cp, warns, err := s.Latest("j", 0)
	must(t, err)
	want := []string{
		"checkpoint 4 of job j pipeline 0 is corrupt (truncated: 10 of ",
		"checkpoint 3 of job j pipeline 0 is corrupt (truncated: 7 bytes, shorter than the 20-byte header); using checkpoint 2",
	}
	if cp.GetId() != 2 || len(warns) != 2 || !strings.HasPrefix(warns[0], want[0]) || !strings.HasSuffix(warns[0], "using checkpoint 2") || warns[1] != want[1] {
		t.Fatalf("Latest = %d, %q", cp.GetId(), warns)
	}
}

func TestLatestAllCorrupt(t *testing.T) {
	s := open(t, t.TempDir())
	paths := completeN(t, s, "j", 3)
	for _, p := range paths {
		must(t, os.Truncate(p, 5))
	}
	cp, warns, err := s.Latest("j", 0)
	must(t, err)
	if cp != nil || len(warns) != 3 {
		t.Fatalf("Latest = %v, %q", cp, warns)
	}
	for i, w := range warns {
		if !strings.HasPrefix(w, fmt.Sprintf("checkpoint %d of job j pipeline 0 is corrupt", 3-i)) || !strings.HasSuffix(w, "no intact checkpoint is left") {
			t.Fatalf("warning %q", w)
		}
	}
	// Nothing intact means nothing to retain against: the files stay.
	must(t, s.Retain(context.Background(), "j", 0, 1, nil))
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRetainCorrupt(t *testing.T) {
	s := open(t, t.TempDir())
	paths := completeN(t, s, "j", 6)
	must(t, os.Truncate(paths[2], 40)) // older than the kept ones: goes
	must(t, os.Truncate(paths[6], 40)) // newest: stays for inspection
	must(t, os.WriteFile(filepath.Join(filepath.Dir(paths[1]), tmpPrefix+"crash-leftover"), nil, 0o600))
	must(t, s.Retain(context.Background(), "j", 0, 2, nil))
	ents, err := os.ReadDir(filepath.Dir(paths[1]))
	must(t, err)
	var files []string
	for _, e := range ents {
		files = append(files, e.Name())
	}
	if want := []string{completedName(4), completedName(5), completedName(6)}; !slices.Equal(files, want) {
		t.Fatalf("completed/ holds %v, want %v", files, want)
	}
	ids, err := listIDs(filepath.Join(s.Root(), "j", "pipeline-0", "state"), names.ParseCount)
	must(t, err)
	if !slices.Equal(ids, []int64{4, 5, 6}) {
		t.Fatalf("state dirs %v", ids)
	}
}

func TestReadStateCorrupt(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	h, err := s.WriteState("j", 0, 0, 1, "t", []byte("hello state"))
	must(t, err)
	path := filepath.Join(root, "j", filepath.FromSlash(h))
	b, err := os.ReadFile(path)
	must(t, err)
	b[len(b)-2] ^= 0xff
	must(t, os.WriteFile(path, b, 0o600))
	_, err = s.ReadState("j", h)
	if !errors.Is(err, storage.ErrCorrupt) || !strings.Contains(err.Error(), "checksum mismatch") {
		t.Fatalf("ReadState of a damaged blob: %v", err)
	}
}

func TestCorruptCounterIsAnError(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	_, err := s.NextAttempt("j", 0, 0)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "j", "pipeline-0", attemptFile), []byte("stactor\x01 garbage"), 0o600))
	_, err = s.NextAttempt("j", 0, 0)
	if !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("NextAttempt over a corrupt counter: %v", err)
	}
	// Fencing must not guess either.
	if err := s.Complete(context.Background(), storagetest.Checkpoint("j", 0, 1, 0)); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("Complete over a corrupt counter: %v", err)
	}
}

func TestLoadJobOfAnotherID(t *testing.T) {
	root := t.TempDir()
	s := open(t, root)
	must(t, s.SaveJob(&messages.JobSpec{JobId: "a"}))
	must(t, os.Mkdir(filepath.Join(root, "b"), 0o700))
	b, err := os.ReadFile(filepath.Join(root, "a", "job.pb"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(root, "b", "job.pb"), b, 0o600))
	if _, err := s.LoadJob("b"); !errors.Is(err, storage.ErrCorrupt) {
		t.Fatalf("LoadJob of a copied spec: %v", err)
	}
}

// TestNoEscapeFromRoot: whatever the job ids, state names and handles, the
// store writes only under its root and reads nothing outside it.
func TestNoEscapeFromRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	secret := filepath.Join(base, "secret.pb")
	must(t, os.WriteFile(secret, append(frameHeader([]byte("secret")), "secret"...), 0o600))
	s := open(t, root)
	hostile := []string{"..", "../..", "../secret", "a/../../..", "/", "/tmp", ".", "./.", "..\\..", "a/b/c", "\x00", strings.Repeat("../", 30)}
	for i, name := range hostile {
		must(t, s.SaveJob(&messages.JobSpec{JobId: name}))
		a, err := s.NextAttempt(name, 0, 0)
		must(t, err)
		h, err := s.WriteState(name, 0, a, int64(i), name, []byte("x"))
		must(t, err)
		must(t, s.Complete(context.Background(), storagetest.Checkpoint(name, 0, int64(i), a, h)))
		must(t, s.Retain(context.Background(), name, 0, 1, nil))
		// The job id must not resolve as a path relative to the root.
		for _, h := range []string{"../secret.pb", "../../secret.pb", "pipeline-0/state/0/../../../../secret.pb", "pipeline-0/state/../../../secret.pb", secret, "pipeline-0/state/0/0-" + name + ".pb"} {
			if b, err := s.ReadState(name, h); err == nil && string(b) == "secret" {
				t.Fatalf("ReadState(%q, %q) read outside the root", name, h)
			}
		}
	}
	ents, err := os.ReadDir(base)
	must(t, err)
	if len(ents) != 2 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Fatalf("the base dir holds %v, want only root and secret.pb", names)
	}
	jobs, err := s.Jobs()
	must(t, err)
	want := slices.Clone(hostile)
	slices.Sort(want)
	if !slices.Equal(jobs, want) {
		t.Fatalf("Jobs = %q, want %q", jobs, want)
	}
	// Every job is one directory directly under the root.
	ents, err = os.ReadDir(root)
	must(t, err)
	if len(ents) != len(hostile) {
		t.Fatalf("root holds %d entries for %d jobs", len(ents), len(hostile))
	}
}

// localPathElement: what an escaped name must be to stay in its directory
// and apart from temp files.
func localPathElement(e string) bool {
	return filepath.IsLocal(e) && !strings.ContainsAny(e, `/\`) && !strings.HasPrefix(e, ".")
}

func TestNamesArePathElements(t *testing.T) {
	namestest.Run(t, fileNames, localPathElement, ".tmp-x", "..", "%2E%2E")
}

func FuzzEscapeName(f *testing.F) { namestest.Fuzz(f, fileNames, localPathElement) }

func FuzzParseHandle(f *testing.F) {
	for _, s := range []string{"pipeline-1/state/12/0-task-1-0.pb", "pipeline-1/state/12/../../x.pb", "../x", "pipeline-01/state/1/0-a.pb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := parseHandle(s)
		if err != nil {
			return
		}
		if formatHandle(h) != s {
			t.Fatalf("parseHandle(%q) re-formats as %q", s, formatHandle(h))
		}
		if !filepath.IsLocal(filepath.FromSlash(s)) {
			t.Fatalf("handle %q is not local", s)
		}
	})
}

func FuzzDecodeFrame(f *testing.F) {
	f.Add(append(frameHeader([]byte("x")), 'x'))
	f.Add([]byte("stactor\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		payload, err := decodeFrame(b)
		if err == nil && len(payload)+headerLen != len(b) {
			t.Fatalf("payload of %d bytes from a %d-byte file", len(payload), len(b))
		}
		if err != nil && !errors.Is(err, storage.ErrCorrupt) {
			t.Fatalf("error %v does not wrap ErrCorrupt", err)
		}
	})
}
