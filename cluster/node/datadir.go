package node

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// idFile is the file in the data directory that keeps the node's id.
const idFile = "node-id"

// validID is what a node id read from the data directory may be, in the
// manner of `^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`: it is the node's Consul
// service ID and part of its NATS connection name. A loop rather than that
// regexp, which compiles its {0,127} into over 100 KB of program at every
// process's start, for a check `stactor node` makes once.
func validID(id string) bool {
	if id == "" || len(id) > 128 || !alnum(id[0]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !alnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func alnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// resolveID is the node's id: id when given (--node-id); else, with a
// data directory, the id kept in dataDir/node-id, generated and written
// there on the first start, so that a restarted node keeps its identity in
// Consul; else host-pid. The data directory is created when missing and
// must be writable.
func resolveID(id, dataDir string) (string, error) {
	if dataDir != "" {
		if err := prepareDataDir(dataDir); err != nil {
			return "", err
		}
		if id == "" {
			return storedID(dataDir)
		}
	}
	if id == "" {
		host, _ := os.Hostname()
		id = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	return id, nil
}

// prepareDataDir creates dir if missing and checks that files can be
// written in it.
func prepareDataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("data dir: cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return fmt.Errorf("data dir %s is not writable: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("data dir %s: %w", dir, err)
	}
	return nil
}

// storedID reads dir/node-id, or generates an id and writes it there
// atomically: it is written whole to a temporary file, synced, and linked
// into place only if no node-id exists, so two nodes started at once on one
// directory end up with the same id rather than each with its own.
func storedID(dir string) (string, error) {
	path := filepath.Join(dir, idFile)
	b, err := os.ReadFile(path)
	if err == nil {
		return parseID(path, b)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("data dir: reading %s: %w", path, err)
	}
	id, err := newID()
	if err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(dir, ".node-id-*")
	if err != nil {
		return "", fmt.Errorf("data dir: writing the node id in %s: %w", dir, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(id + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("data dir: writing %s: %w", tmp.Name(), err)
	}
	switch err := os.Link(tmp.Name(), path); {
	case errors.Is(err, fs.ErrExist):
		// Another start wrote it first: take its id.
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("data dir: reading %s: %w", path, err)
		}
		return parseID(path, b)
	case err != nil:
		// No hard links on this file system: a rename is atomic too.
		if err := os.Rename(tmp.Name(), path); err != nil {
			return "", fmt.Errorf("data dir: writing %s: %w", path, err)
		}
	}
	if err := syncDir(dir); err != nil {
		return "", fmt.Errorf("data dir: %w", err)
	}
	return id, nil
}

// parseID checks the content of a node-id file.
func parseID(path string, b []byte) (string, error) {
	id := strings.TrimSpace(string(b))
	if !validID(id) {
		return "", fmt.Errorf("data dir: %s holds %q, which is not a node id (letters, digits, '.', '_', '-'); "+
			"delete the file to have a new id generated, or write the node's id in it", path, id)
	}
	return id, nil
}

// newID is the host name and 8 random hex digits.
func newID() (string, error) {
	var r [4]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", fmt.Errorf("generating a node id: %w", err)
	}
	host, _ := os.Hostname()
	host = strings.Map(func(c rune) rune {
		if c < 128 && (c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return c
		}
		return '-'
	}, host)
	if host == "" || !validID(host) {
		host = "node"
	}
	return fmt.Sprintf("%.100s-%s", host, hex.EncodeToString(r[:])), nil
}

// syncDir makes a new directory entry in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// ID is the node's id: --node-id, or the one kept in the data directory,
// or host-pid.
func (n *Node) ID() string { return n.cfg.ID }
