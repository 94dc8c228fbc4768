package localfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stactor/stactor/connectors"
)

// UndoCommits removes exactly the files checkpoints from+1 .. to of the
// pipeline committed: earlier and later checkpoints, other pipelines and
// jobs, partition folders' files of other checkpoints and staging stay.
func TestUndoCommitsAfterACheckpoint(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv", numbered)
	c, _ := k.CreateCommitter()
	for ckpt := int64(1); ckpt <= 5; ckpt++ {
		for sub := 0; sub < 2; sub++ {
			info, w := prepared(t, k, task(sub, 0), ckpt, numberedRows(t, 3))
			w.Close()
			if err := c.Commit(context.Background(), cctx(0, ckpt), [][]byte{info}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Another job's and another pipeline's files, a file with a longer
	// checkpoint id, and one staged.
	for _, f := range []string{"T_job1x_1_0_4_0.csv", "T_job1_2_0_4_0.csv", "T_job1_1_0_40_0.csv", "keep.csv", ".stactor-staging/job1/1/0-t0/0/4/0.csv"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, f), []byte("1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := c.(connectors.CommitRemover)
	for range 2 { // idempotent
		if err := u.UndoCommits(context.Background(), cctx(1, 2), 2, 5); err != nil {
			t.Fatal(err)
		}
	}
	want := "[.stactor-staging/job1/1/0-t0/0/4/0.csv T_job1_1_0_1_0.csv T_job1_1_0_2_0.csv T_job1_1_0_40_0.csv T_job1_1_1_1_0.csv T_job1_1_1_2_0.csv T_job1_2_0_4_0.csv T_job1x_1_0_4_0.csv keep.csv]"
	if got := files(t, dir); fmt.Sprint(got) != want {
		t.Fatalf("after undoing checkpoints 3 to 5:\n%v\nwant\n%s", got, want)
	}
	// From the start (-1): every checkpoint of the pipeline up to to.
	if err := u.UndoCommits(context.Background(), cctx(1, -1), -1, 5); err != nil {
		t.Fatal(err)
	}
	want = "[.stactor-staging/job1/1/0-t0/0/4/0.csv T_job1_1_0_40_0.csv T_job1_2_0_4_0.csv T_job1x_1_0_4_0.csv keep.csv]"
	if got := files(t, dir); fmt.Sprint(got) != want {
		t.Fatalf("after undoing all: %v", got)
	}
}

// Only a transactional sink whose names carry the checkpoint can undo.
func TestUndoesCommits(t *testing.T) {
	dir := t.TempDir()
	for body, want := range map[string]bool{
		"file_format_type = csv":                                 true,
		"file_format_type = json\nis_enable_transaction = false": false,
	} {
		k := newTestSink(t, "path = "+q(dir)+"\n"+body, numbered)
		if got := k.UndoesCommits(); got != want {
			t.Errorf("%q: UndoesCommits = %v", body, got)
		}
	}
}
