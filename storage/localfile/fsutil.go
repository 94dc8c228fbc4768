package localfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	dirPerm   = 0o700 // checkpoints hold rows (channel state): owner only
	tmpPrefix = ".tmp-"
)

// writeAtomic writes the concatenated chunks to dir/name so that a reader —
// or the same path after a crash — sees either the old file or all of the
// new one: temp file in the same directory, write, fsync, rename. It does
// not fsync dir; the caller does when the new entry must be durable.
func writeAtomic(dir, name string, chunks ...[]byte) (err error) {
	f, err := os.CreateTemp(dir, tmpPrefix+name+"-*") // mode 0600
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	for _, c := range chunks {
		if _, err = f.Write(c); err != nil {
			return err
		}
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(dir, name))
}

// syncDir makes dir's entries (files renamed into it, created or removed)
// durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// mkdirSync creates dir and any missing parents, fsyncing the parent of each
// directory it creates so the new entries survive a crash. The store's root
// exists (New made it), which ends the recursion.
func mkdirSync(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	parent := filepath.Dir(dir)
	if parent == dir {
		return nil
	}
	if err := mkdirSync(parent); err != nil {
		return err
	}
	if err := os.Mkdir(dir, dirPerm); err != nil {
		if errors.Is(err, fs.ErrExist) { // a concurrent writer made it
			return nil
		}
		return err
	}
	return syncDir(parent)
}

// removeTemps removes temp files a crash left in dir. Only call it where no
// write can be under way (the pipeline lock is held).
func removeTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
