// Package output reads what a job committed, as the tests check it row by
// row: the ids in the first column of every CSV file a LocalFile sink
// committed.
package output

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IDs reads every committed file under dir (not staging: names and
// folders starting with a dot) and returns the id in the first column of
// each row, in the order read. A missing dir is nothing committed yet.
func IDs(dir string) ([]int, error) {
	var ids []int
	err := Each(dir, func(_ string, id int64) error { ids = append(ids, int(id)); return nil })
	return ids, err
}

// Each calls add with each committed file's path and the id of each of its
// non-empty lines, as IDs reads them. A line whose first field is not an
// integer is an error naming the file.
func Each(dir string, add func(path string, id int64) error) error {
	return filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir // nothing committed yet
			}
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && p != dir {
			if d.IsDir() {
				return filepath.SkipDir // staging
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" {
				continue
			}
			field, _, _ := strings.Cut(line, ",")
			id, err := strconv.ParseInt(field, 10, 64)
			if err != nil {
				return fmt.Errorf("%s: bad line %q", p, line)
			}
			if err := add(p, id); err != nil {
				return err
			}
		}
		return sc.Err()
	})
}

// WriteInput writes ids 0..rows-1 as "id,name-id" lines into files CSV
// files part-<k>.csv under dir, id i in file i mod files, so a source's
// readers have splits to share.
func WriteInput(dir string, rows, files int) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for f := 0; f < files; f++ {
		var b strings.Builder
		for i := f; i < rows; i += files {
			fmt.Fprintf(&b, "%d,name-%d\n", i, i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("part-%d.csv", f)), []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}
