package localfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/row"
)

func prepared(t *testing.T, k *sink, tk connectors.TaskInfo, ckpt int64, b *row.Batch) ([]byte, connectors.Writer) {
	t.Helper()
	w, err := k.CreateWriter(context.Background(), tk, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	info, err := w.PrepareCommit(ckpt)
	if err != nil || info == nil {
		t.Fatalf("prepare: %v %v", info, err)
	}
	return info, w
}

func cctx(attempt int, ckpt int64) connectors.CommitContext {
	return connectors.CommitContext{JobID: "job1", Pipeline: 1, Attempt: attempt, CheckpointID: ckpt}
}

func TestNothingVisibleBeforeCommit(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv", numbered)
	info, w := prepared(t, k, task(2, 3), 5, numberedRows(t, 10))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{".stactor-staging/job1/1/3-t0/2/1/0.csv"}
	if got := files(t, dir); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("before commit: %v", got)
	}
	c, _ := k.CreateCommitter()
	if err := c.Commit(context.Background(), cctx(3, 5), [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	// SeaTunnel's transaction id with the pipeline for the uuid prefix,
	// then the part number and the format's suffix.
	if got := files(t, dir); fmt.Sprint(got) != "[T_job1_1_2_5_0.csv]" {
		t.Fatalf("after commit: %v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, stagingDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("staging left behind: %v", err)
	}
}

func TestCommitIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = json\nbatch_size = 3", numbered)
	info, _ := prepared(t, k, task(0, 0), 1, numberedRows(t, 10))
	ci, _ := decodeCommitInfo(info)
	if len(ci.Files) != 4 {
		t.Fatalf("batch_size 3 made %d files of 10 rows", len(ci.Files))
	}
	c, _ := k.CreateCommitter()

	// A crash between renames: the first file moved, the others not.
	if err := os.Rename(ci.Files[0].From, ci.Files[0].To); err != nil {
		t.Fatal(err)
	}
	if err := c.Commit(context.Background(), cctx(0, 1), [][]byte{info}); err != nil {
		t.Fatalf("completing a partial commit: %v", err)
	}
	want := "[T_job1_1_0_1_0.json T_job1_1_0_1_1.json T_job1_1_0_1_2.json T_job1_1_0_1_3.json]"
	if got := files(t, dir); fmt.Sprint(got) != want {
		t.Fatalf("files %v", got)
	}
	// And again: nothing changes, nothing fails.
	if err := c.Commit(context.Background(), cctx(0, 1), [][]byte{info}); err != nil {
		t.Fatalf("second commit: %v", err)
	}
	if got := files(t, dir); fmt.Sprint(got) != want {
		t.Fatalf("files after second commit %v", got)
	}
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = json\nschema { fields { id = bigint, s = string } }")
	if rows := readAll(t, src, 1); len(rows) != 10 {
		t.Fatalf("read %d rows", len(rows))
	}
	// A staged file that is gone and whose committed name is gone too was
	// committed before and moved on by a reader (SeaTunnel's committers
	// skip it); see TestCommitOfLostStaging for when that is an error.
	ci.Files[0].To += ".moved-on"
	moved, _ := ci.encode()
	if err := c.Commit(context.Background(), cctx(0, 1), [][]byte{moved}); err != nil {
		t.Fatalf("commit of files committed and moved on since: %v", err)
	}
}

func TestAbortAndAbortStale(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = text", numbered)
	c, _ := k.CreateCommitter()

	// Abort deletes the staged files of an info, never a final file.
	info, _ := prepared(t, k, task(0, 0), 1, numberedRows(t, 3))
	writeFile(t, filepath.Join(dir, "T_job1_1_0_1_0.txt"), "not ours")
	if err := c.Abort(context.Background(), cctx(0, 1), [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); fmt.Sprint(got) != "[T_job1_1_0_1_0.txt]" {
		t.Fatalf("after abort: %v", got)
	}
	os.Remove(filepath.Join(dir, "T_job1_1_0_1_0.txt"))

	// Staging of attempts 0 and 1 of job1 pipeline 1, attempt 2's (the
	// current one), another job's and another pipeline's.
	prepared(t, k, task(0, 0), 2, numberedRows(t, 3))
	prepared(t, k, task(1, 1), 3, numberedRows(t, 3))
	prepared(t, k, task(0, 2), 4, numberedRows(t, 3))
	prepared(t, k, connectors.TaskInfo{JobID: "job2", Pipeline: 1, Attempt: 0}, 2, numberedRows(t, 3))
	prepared(t, k, connectors.TaskInfo{JobID: "job1", Pipeline: 2, Attempt: 0}, 2, numberedRows(t, 3))
	// A newer attempt, started by a newer leader: this committer may be a
	// replaced leader's leftover, so it must not touch it.
	prepared(t, k, connectors.TaskInfo{JobID: "job1", Pipeline: 1, Attempt: 3, Term: 9}, 5, numberedRows(t, 3))
	// A folder named as before terms ("<attempt>") is an earlier attempt too.
	legacy := filepath.Join(dir, ".stactor-staging/job1/1/1/0/1")
	if err := os.MkdirAll(legacy, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(legacy, "0.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.(connectors.StaleAborter).AbortStale(context.Background(), cctx(2, 4)); err != nil {
		t.Fatal(err)
	}
	want := "[.stactor-staging/job1/1/2-t0/0/1/0.txt .stactor-staging/job1/1/3-t9/0/1/0.txt .stactor-staging/job1/2/0-t0/0/1/0.txt .stactor-staging/job2/1/0-t0/0/1/0.txt]"
	if got := files(t, dir); fmt.Sprint(got) != want {
		t.Fatalf("after AbortStale:\n got %v\nwant %v", got, want)
	}
}

func TestWriterCloseAndAbortPrepare(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = parquet", numbered)
	w, _ := k.CreateWriter(context.Background(), task(0, 0), nil)
	w.Write(numberedRows(t, 5))
	info, err := w.PrepareCommit(1)
	if err != nil || info == nil {
		t.Fatal(err)
	}
	// Rows after the checkpoint, then a failure: Close drops them only.
	w.Write(numberedRows(t, 5))
	if len(files(t, dir)) != 2 {
		t.Fatalf("files %v", files(t, dir))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := files(t, dir); len(got) != 1 || !strings.HasSuffix(got[0], "/1/0.parquet") {
		t.Fatalf("after close: %v", got)
	}

	// AbortPrepare discards what the last PrepareCommit staged.
	w, _ = k.CreateWriter(context.Background(), task(1, 0), nil)
	w.Write(numberedRows(t, 5))
	w.PrepareCommit(2)
	if err := w.AbortPrepare(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got := files(t, dir); len(got) != 1 {
		t.Fatalf("after AbortPrepare: %v", got)
	}
	// An empty checkpoint has nothing to commit.
	w, _ = k.CreateWriter(context.Background(), task(2, 0), nil)
	if info, err := w.PrepareCommit(3); info != nil || err != nil {
		t.Fatalf("empty prepare: %v %v", info, err)
	}
}

func TestWriterStateRestoresCounters(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv\nbatch_size = 2", numbered)
	w, _ := k.CreateWriter(context.Background(), task(0, 0), nil)
	w.Write(numberedRows(t, 3)) // parts 0 and 1
	i1, _ := w.PrepareCommit(1)
	st, err := w.SnapshotState(1)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	w2, err := k.CreateWriter(context.Background(), task(0, 1), st)
	if err != nil {
		t.Fatal(err)
	}
	w2.Write(numberedRows(t, 2))
	i2, _ := w2.PrepareCommit(4)
	c, _ := k.CreateCommitter()
	if err := c.Commit(context.Background(), cctx(1, 4), [][]byte{i1, i2}); err != nil {
		t.Fatal(err)
	}
	// The restored writer goes on with part 1 and stages as attempt 1.
	if got := fmt.Sprint(files(t, dir)); got != "[T_job1_1_0_1_0.csv T_job1_1_0_1_1.csv T_job1_1_0_4_1.csv]" {
		t.Fatalf("files %v", got)
	}
	ci, _ := decodeCommitInfo(i2)
	if !strings.Contains(ci.Staging, "/.stactor-staging/job1/1/1-t0/0/2") {
		t.Fatalf("staging %s", ci.Staging)
	}
}

func TestPartitionsAndNaming(t *testing.T) {
	dir := t.TempDir()
	s := row.MustSchema("p", row.Field{Name: "name", Type: row.String}, row.Field{Name: "age", Type: row.Int}, row.Field{Name: "city", Type: row.String})
	b := batchOf(t, s, []any{"a", int64(26), "Oslo"}, []any{"b", int64(30), "Rome"}, []any{"c", int64(26), "Rome"})
	k := newTestSink(t, `path = `+q(dir)+`
		file_format_type = text
		field_delimiter = "\t"
		have_partition = true
		partition_by = [age]
		partition_dir_expression = "${k0}=${v0}"
		sink_columns = [name, age]
		custom_filename = true
		file_name_expression = "${transactionId}_${now}"
		filename_time_format = "yyyy.MM.dd"`, s)
	w, _ := k.CreateWriter(context.Background(), task(0, 0), nil)
	w.(*writer).now = func() time.Time { return time.Date(2024, 3, 9, 1, 2, 3, 0, time.UTC) }
	w.Write(b)
	info, _ := w.PrepareCommit(1)
	c, _ := k.CreateCommitter()
	if err := c.Commit(context.Background(), cctx(0, 1), [][]byte{info}); err != nil {
		t.Fatal(err)
	}
	got := files(t, dir)
	if fmt.Sprint(got) != "[age=26/T_job1_1_0_1_2024.03.09_0.txt age=30/T_job1_1_0_1_2024.03.09_0.txt]" {
		t.Fatalf("files %v", got)
	}
	if c := readFile(t, filepath.Join(dir, got[0])); c != "a\nc\n" {
		t.Errorf("partition file %q", c)
	}
	// Read back: the partition folder is a field again.
	src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = text\nschema { fields { name = string } }")
	compareRows(t, src.cfg.schema.Names(), readAll(t, src, 1), [][]any{{"a", "26"}, {"c", "26"}, {"b", "30"}})

	// Default folder names; partition fields written too; ${uuid}.
	dir2 := t.TempDir()
	k = newTestSink(t, `path = `+q(dir2)+`
		file_format_type = csv
		partition_by = [city, age]
		is_partition_field_write_in_file = true
		custom_filename = true
		file_name_expression = "${transactionId}-${uuid}"`, s)
	writeAndCommit(t, k, task(0, 0), 1, b)
	got = files(t, dir2)
	re := regexp.MustCompile(`^city=(Oslo|Rome)/age=(26|30)/T_job1_1_0_1-[0-9a-f-]{36}_0\.csv$`)
	if len(got) != 3 {
		t.Fatalf("files %v", got)
	}
	for _, f := range got {
		if !re.MatchString(f) {
			t.Errorf("file %s", f)
		}
	}
}

func TestWithoutTransactions(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv\nis_enable_transaction = false", numbered)
	w, _ := k.CreateWriter(context.Background(), task(0, 0), nil)
	w.Write(numberedRows(t, 3))
	// Straight to the final name, before any checkpoint (not exactly-once).
	if got := fmt.Sprint(files(t, dir)); got != "[T_job1_1_0_1_0.csv]" {
		t.Fatalf("files %v", got)
	}
	if info, err := w.PrepareCommit(1); info != nil || err != nil {
		t.Fatalf("prepare: %v %v", info, err)
	}
	w.Close()
	if c := readFile(t, filepath.Join(dir, "T_job1_1_0_1_0.csv")); c != "0,0\n1,x1\n2,xx2\n" {
		t.Fatalf("content %q", c)
	}
}

func TestSingleFileAndEmptyFile(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv\nsingle_file_mode = true\nbatch_size = 2\ncreate_empty_file_when_no_data = true\nfilename_extension = dat", numbered)
	writeAndCommit(t, k, task(0, 0), 1, numberedRows(t, 5))
	writeAndCommit(t, k, task(0, 0), 2)
	if got := fmt.Sprint(files(t, dir)); got != "[T_job1_1_0_1.dat T_job1_1_0_2.dat]" {
		t.Fatalf("files %v", got)
	}
}

// A staged file that is gone was committed before (SeaTunnel's file
// committers skip it: the output may have been moved on since) — unless
// the node that staged it left the cluster, where it is missing because
// this is not the writer's disk: that fails the commit permanently, naming
// the file, rather than wait forever or pass over lost rows.
func TestCommitOfLostStaging(t *testing.T) {
	dir := t.TempDir()
	k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = csv", numbered)
	info, w := prepared(t, k, task(0, 1), 2, numberedRows(t, 3))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, stagingDir)); err != nil {
		t.Fatal(err)
	}
	c, _ := k.CreateCommitter()
	if err := c.Commit(context.Background(), cctx(1, 2), [][]byte{info}); err != nil {
		t.Fatalf("commit of staging gone on the writer's node: %v", err)
	}
	gone := cctx(1, 2)
	gone.WriterGone = true
	err := c.Commit(context.Background(), gone, [][]byte{info})
	if err == nil || !connectors.IsPermanent(err) || !strings.Contains(err.Error(), "left the cluster") {
		t.Fatalf("commit of a departed node's lost staging: %v (permanent %v)", err, connectors.IsPermanent(err))
	}
}
