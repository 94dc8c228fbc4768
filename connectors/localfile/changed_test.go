package localfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A file truncated while it is read is an error naming it, not a partial
// read with a torn last row; so is one that grows, and one restored from a
// position past its end.
func TestFileChangedUnderReaderIsAnError(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(path string) error
	}{
		{"truncated", func(p string) error { return os.Truncate(p, 30_005) }},
		{"appended", func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			_, err = f.WriteString("999999,x\n")
			return errors.Join(err, f.Close())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "data.csv")
			var b strings.Builder
			for i := 0; i < 300_000; i++ {
				fmt.Fprintf(&b, "%d,row %d\n", i, i)
			}
			writeFile(t, path, b.String())
			src := newTestSource(t, "path = "+q(dir)+"\nfile_format_type = csv\nschema { fields { id = bigint, s = string } }")
			r, rc := openReader(t, src, splitsFor(t, src, 1)[0])
			out := &collector{size: 100}
			if err := r.PollNext(out); err != nil { // opened, a first batch read
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond) // a later modification time
			if err := c.change(path); err != nil {
				t.Fatal(err)
			}
			var err error
			for i := 0; i < 1_000_000 && rc.ended == 0; i++ {
				if err = r.PollNext(out); err != nil {
					break
				}
			}
			if err == nil || !strings.Contains(err.Error(), path+" changed while it was being read") {
				t.Fatalf("read %d rows, error %v", len(out.rows()), err)
			}
		})
	}
	t.Run("restored past the end", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "data.csv")
		writeFile(t, path, "1,a\n2,b\n")
		_, err := openRecordsIn(path, "", "", 100, 0, "\n", '"')
		if err == nil || !strings.Contains(err.Error(), "shorter than the 100 already read") {
			t.Fatalf("error %v", err)
		}
	})
}
