package localfile

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stactor/stactor/connectors"
)

func createAnySource(t *testing.T, body string) (connectors.Source, error) {
	t.Helper()
	s, _, err := resolveAndCreate(t, body, 2)
	return s, err
}

// readAny runs a source's enumerator with p readers and reads every
// reader to its end, returning the rows as "table: values" lines, sorted.
func readAny(t *testing.T, s connectors.Source, p int) []string {
	t.Helper()
	assigned := splitsFor(t, s, p)
	var out []string
	for i := 0; i < p; i++ {
		rc := &readerCtx{}
		r, err := s.CreateReader(rc)
		if err != nil {
			t.Fatal(err)
		}
		r.(*multiReader).inner[0].sleep = func(time.Duration) {}
		r.AddSplits(assigned[i])
		r.HandleNoMoreSplits()
		col := &collector{size: 2}
		for n := 0; n < 10000 && rc.ended == 0; n++ {
			if err := r.PollNext(col); err != nil {
				t.Fatal(err)
			}
		}
		if rc.ended != 1 {
			t.Fatalf("reader %d ended %d times", i, rc.ended)
		}
		for _, b := range col.batches {
			for k := 0; k < b.Len(); k++ {
				out = append(out, fmt.Sprintf("%s: %v", b.Schema.TableID, b.Row(k)))
			}
		}
		r.Close()
	}
	sort.Strings(out)
	return out
}

// TestMultiTableSource: tables_configs reads each entry's files with its
// own format and schema, each row in its own table.
func TestMultiTableSource(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a", "1.csv"), "1,x\n2,y\n")
	writeFile(t, filepath.Join(dir, "a", "2.csv"), "3,z\n")
	writeFile(t, filepath.Join(dir, "b", "1.json"), `{"n":"p","m":1.5}`+"\n")
	s, err := createAnySource(t, `tables_configs = [
  { path = "`+dir+`/a", file_format_type = csv, schema = { table = "db.a", fields { id = int, v = string } } }
  { path = "`+dir+`/b", file_format_type = json, schema = { table = "db.b", fields { n = string, m = double } } }
]`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range s.Tables() {
		names = append(names, tb.TableID+fmt.Sprint(tb.Names()))
	}
	if strings.Join(names, " ") != "db.a[id v] db.b[n m]" {
		t.Fatalf("tables: %v", names)
	}
	got := readAny(t, s, 2)
	want := []string{"db.a: [1 x]", "db.a: [2 y]", "db.a: [3 z]", "db.b: [p 1.5]"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("rows:\n got %v\nwant %v", got, want)
	}

	// An entry is checked as a whole source, and its mistakes name it.
	_, err = createAnySource(t, `tables_configs = [{ path = "`+dir+`/a", schema = { fields { id = int } } }]`)
	if err == nil || !strings.Contains(err.Error(), "tables_configs[0]") || !strings.Contains(err.Error(), "file_format_type") {
		t.Fatalf("an entry without file_format_type: %v", err)
	}
	_, err = createAnySource(t, `tables_configs = [
  { path = "`+dir+`/a", file_format_type = csv, schema = { table = t, fields { id = int } } }
  { path = "`+dir+`/a", file_format_type = csv, schema = { table = t, fields { id = int } } } ]`)
	if err == nil || !strings.Contains(err.Error(), "read by two entries") {
		t.Fatalf("two entries of one table: %v", err)
	}
	// Without tables_configs, path is required as before.
	_, err = createAnySource(t, `file_format_type = csv`)
	if err == nil || !strings.Contains(err.Error(), `"path"`) || !strings.Contains(err.Error(), "required") {
		t.Fatalf("no path: %v", err)
	}
}
