package seatunnel_test

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stactor/stactor/connectors/localfile/lzop"
)

// SeaTunnel's LocalFile ITs run their job files in a container, with the
// input files copied to fixed paths (/seatunnel/read/...). Here a run's
// folder stands in for the container: the paths under the file's
// container prefixes are moved into it, in the job text the binary gets
// (the file in testdata stays as SeaTunnel has it), so runs never touch
// the machine's own /seatunnel or /tmp and can run side by side.

// input is a file the IT copies into its container: testdata files as
// they are (input), gzipped (input-gz), zipped (input-zip), in a tar (input-tar, input-tar-gz)
// or lzop-compressed (input-lzo).
type input struct {
	kind  string
	dest  string
	files []string
}

// containerRoot is the folder of a run's container paths.
func containerRoot(work string) string { return filepath.Join(work, "container") }

// inContainer maps the container prefixes of text into the run's folder.
func inContainer(s spec, text, work string) string {
	for _, p := range s.container {
		text = strings.ReplaceAll(text, p, filepath.Join(containerRoot(work), p))
	}
	return text
}

// prepareContainer copies the file's inputs into the run's container, runs
// the files it comes after there (found in dir), and returns the path of
// the job text to run, with its container paths mapped.
func prepareContainer(t *testing.T, s spec, file, dir, work, testdata string) string {
	t.Helper()
	setupInputs(t, s, work, testdata)
	for _, prev := range s.after {
		path := filepath.Join(dir, prev)
		ps := readSpec(t, path)
		ps.container = s.container
		setupInputs(t, ps, work, testdata)
		job := writeJob(t, ps, path, work, filepath.Base(path))
		runPlain(t, job, work)
	}
	return writeJob(t, s, file, work, "job-in-container.conf")
}

func setupInputs(t *testing.T, s spec, work, testdata string) {
	t.Helper()
	for _, in := range s.inputs {
		dest := inContainer(s, in.dest, work)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			t.Fatal(err)
		}
		var contents [][]byte
		for _, name := range in.files {
			b, err := os.ReadFile(filepath.Join(testdata, name))
			if err != nil {
				t.Fatal(err)
			}
			contents = append(contents, b)
		}
		var buf bytes.Buffer
		switch in.kind {
		case "input":
			buf.Write(contents[0])
		case "input-gz":
			zw := gzip.NewWriter(&buf)
			zw.Write(contents[0])
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
		case "input-lzo":
			zw := lzop.NewWriter(&buf)
			zw.Write(contents[0])
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
		case "input-zip":
			zw := zip.NewWriter(&buf)
			for k, name := range in.files {
				w, err := zw.Create(entryName(k, name))
				if err != nil {
					t.Fatal(err)
				}
				w.Write(contents[k])
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
		case "input-tar", "input-tar-gz":
			var out io.Writer = &buf
			var gz *gzip.Writer
			if in.kind == "input-tar-gz" {
				gz = gzip.NewWriter(&buf)
				out = gz
			}
			tw := tar.NewWriter(out)
			for k, name := range in.files {
				hdr := &tar.Header{Name: entryName(k, name), Mode: 0o644, Size: int64(len(contents[k])), Typeflag: tar.TypeReg}
				if err := tw.WriteHeader(hdr); err != nil {
					t.Fatal(err)
				}
				tw.Write(contents[k])
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			if gz != nil {
				if err := gz.Close(); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := os.WriteFile(dest, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range s.container {
		os.MkdirAll(filepath.Join(containerRoot(work), p), 0o755)
	}
}

// entryName is the name of file k in an archive: unique, with the file's
// extension, as the IT's random-prefixed names are.
func entryName(k int, name string) string {
	return strconv.Itoa(k) + filepath.Base(name)
}

// writeJob writes file's text with its container paths mapped.
func writeJob(t *testing.T, s spec, file, work, name string) string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, name)
	if err := os.WriteFile(out, []byte(inContainer(s, string(raw), work)), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// runPlain runs a job that must succeed (a file another comes after).
func runPlain(t *testing.T, job, work string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, stactor, "run", job)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "STACTOR_HOME="+filepath.Join(work, ".stactor"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s (run before this file): %v\nstderr:\n%s", filepath.Base(job), err, tail(stderr.String()))
	}
}
