// Package committed reads back what a LocalFile sink committed, for the
// end-to-end tests that check output row by row (tests/cluster,
// tests/crash, tests/chaos): every file under a directory except staging
// and other names that start with a dot, each line's first CSV field an
// id.
package committed

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// IDs calls add with each committed file's path and the id of each of its
// non-empty lines. A dir that does not exist has committed nothing; a
// line whose first field is not an integer is an error naming the file.
func IDs(dir string, add func(path string, id int64) error) error {
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
