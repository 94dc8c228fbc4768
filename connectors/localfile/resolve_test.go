package localfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
	"github.com/stactor/stactor/plan"
)

// TestResolveListsOnce: the files are listed and sniffed for gzip's magic
// in Resolve alone; Create (on the master and for every subtask) takes the
// listing from the resolved bytes and opens nothing: files added or
// removed after Resolve change nothing, and no warning is recorded again.
// Without resolved bytes Create fails with a positioned error.
func TestResolveListsOnce(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a.gz.csv"), "1,a\n")
	if err := os.WriteFile(filepath.Join(dir, "b.gz.csv"), gzipped(t, []byte("2,b\n"), ""), 0o644); err != nil {
		t.Fatal(err)
	}
	body := "path = " + q(dir) + "\nfile_format_type = csv\ncompress_codec = gzip\nschema { fields { id = int, s = string } }"
	cfg, res := resolveBody(t, body)
	job := connectors.JobContext{Mode: connectors.Batch, Parallelism: 1}
	if w := cfg.Warnings(); len(w) != 1 || !strings.Contains(w[0].Msg, "a.gz.csv is not gzip") {
		t.Fatalf("resolve warnings %q", w)
	}

	// After Resolve: a new file, and the plain file gone (opening it
	// would fail).
	writeFile(t, filepath.Join(dir, "c.gz.csv"), "3,c\n")
	if err := os.Remove(filepath.Join(dir, "a.gz.csv")); err != nil {
		t.Fatal(err)
	}
	again, err := plugin(t, "source LocalFile", SourceFactory.Options, body)
	if err != nil {
		t.Fatal(err)
	}
	s, err := SourceFactory.Create(again, res, job)
	if err != nil {
		t.Fatalf("create from the resolved listing: %v", err)
	}
	var got []string
	for _, f := range s.(*source).cfg.files {
		got = append(got, filepath.Base(f.path))
	}
	if strings.Join(got, " ") != "a.gz.csv b.gz.csv" {
		t.Fatalf("files %v, want the resolved a.gz.csv b.gz.csv", got)
	}
	if w := again.Warnings(); len(w) != 0 {
		t.Fatalf("create recorded warnings %q", w)
	}

	_, err = SourceFactory.Create(again, nil, job)
	var ce *config.Error
	if !errors.As(err, &ce) || ce.Pos.Line == 0 || !strings.Contains(err.Error(), errNotResolved.Error()) {
		t.Fatalf("create without resolved bytes: %v", err)
	}
}

// TestTablesConfigsWarnings: the warnings of a tables_configs entry are
// the plugin's, placed at the entry's option and naming the entry.
func TestTablesConfigsWarnings(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "1.csv"), "1,x\n")
	writeFile(t, filepath.Join(dir, "b", "1.gz.csv"), "2,y\n")
	s, w, err := resolveAndCreate(t, `tables_configs = [
  { path = "`+dir+`/a", file_format_type = csv, schema = { table = "db.a", fields { id = int, v = string } } }
  { path = "`+dir+`/b", file_format_type = csv, compress_codec = gzip, schema = { table = "db.b", fields { id = int, v = string } } }
]`, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || !strings.HasPrefix(w[0].String(), "job.conf:3:") ||
		!strings.Contains(w[0].Msg, "source LocalFile tables_configs[1]: compress_codec: "+filepath.Join(dir, "b", "1.gz.csv")+" is not gzip") {
		t.Fatalf("warnings %q", w)
	}
	if got := readAny(t, s, 1); strings.Join(got, " ") != "db.a: [1 x] db.b: [2 y]" {
		t.Fatalf("rows %v", got)
	}
}

// TestResolveReadsFileSchemaOnce: a parquet or orc file's schema is read by
// Resolve; Create takes it from the resolved bytes, so the file need not
// be there (or readable) when a subtask is created.
func TestResolveReadsFileSchemaOnce(t *testing.T) {
	for _, format := range []string{"parquet", "orc"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			k := newTestSink(t, "path = "+q(dir)+"\nfile_format_type = "+format, numbered)
			writeAndCommit(t, k, task(0, 0), 1, numberedRows(t, 2))
			for _, body := range []string{
				"path = " + q(dir) + "\nfile_format_type = " + format,
				"path = " + q(dir) + "\nfile_format_type = " + format + "\nschema { table = \"db.t\" }",
				"path = " + q(dir) + "\nfile_format_type = " + format + "\nschema { table = \"db.t\", fields { id = bigint } }",
			} {
				cfg, res := resolveBody(t, body)
				job := connectors.JobContext{Mode: connectors.Batch, Parallelism: 1}
				want, err := SourceFactory.Create(cfg, res, job)
				if err != nil {
					t.Fatal(err)
				}
				// The files gone: Create must not read them.
				hidden := dir + ".hidden"
				if err := os.Rename(dir, hidden); err != nil {
					t.Fatal(err)
				}
				got, err := SourceFactory.Create(cfg, res, job)
				if err := os.Rename(hidden, dir); err != nil {
					t.Fatal(err)
				}
				if err != nil {
					t.Fatalf("%s: create without the files: %v", body, err)
				}
				if g, w := got.Tables()[0], want.Tables()[0]; g.TableID != w.TableID || !reflect.DeepEqual(g.Fields, w.Fields) {
					t.Fatalf("%s: table %v, want %v", body, g, w)
				}
			}
		})
	}
}

// resolveBody validates a block body and resolves it, returning the
// plugin's config and the resolved bytes.
func resolveBody(t *testing.T, body string) (*config.PluginConfig, []byte) {
	t.Helper()
	cfg, err := plugin(t, "source LocalFile", SourceFactory.Options, body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := SourceFactory.Resolve(context.Background(), cfg, connectors.JobContext{Mode: connectors.Batch, Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	return cfg, res
}

// TestDecodeListingErrors: resolved bytes of another version or damaged
// are an error, never a panic; a listing round-trips.
func TestDecodeListingErrors(t *testing.T) {
	good, err := encodeListing(listing{Tables: []listedTable{{Files: []listedFile{{Path: "/d/a.csv", Size: 3}}}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeListing(good)
	if err != nil || len(got) != 1 || len(got[0].files) != 1 || got[0].files[0] != (fileInfo{path: "/d/a.csv", size: 3}) {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for _, b := range [][]byte{nil, {1}, {listingVersion}, {listingVersion, 'x', 'y'}, good[:len(good)/2]} {
		if _, err := decodeListing(b); err == nil {
			t.Errorf("%q: no error", b)
		}
	}
}

// TestPlanWarnsOfPlainGzip: planned as a job, the plain-file-under-gzip
// warning is one plan warning at compress_codec's value, for a table of
// tables_configs too.
func TestPlanWarnsOfPlainGzip(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(dir, "a.gz.csv"), "1,a\n")
	src := `env { job.mode = BATCH }
source {
  LocalFile {
    tables_configs = [
      { path = "` + dir + `", file_format_type = csv, schema = { table = "db.a", fields { id = int, s = string } } }
      { path = "` + dir + `", file_format_type = csv,
        compress_codec = gzip, schema = { table = "db.b", fields { id = int, s = string } } }
    ]
  }
}
sink { LocalFile { path = "` + out + `/${table_name}", file_format_type = csv } }`
	job, err := config.Parse("job.conf", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Resolve(context.Background(), job, "j1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range p.Warnings {
		if strings.Contains(w.Msg, "is not gzip") {
			got = append(got, w.String())
		}
	}
	want := "job.conf:7:26: source LocalFile tables_configs[1]: compress_codec: " + filepath.Join(dir, "a.gz.csv") + " is not gzip"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Fatalf("plan warnings %q, want one starting %q", got, want)
	}
}
