package localfile

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// Archives on read (archive_compress_codec zip, tar, tar_gz), as
// SeaTunnel's AbstractReadStrategy reads them: every file inside an
// archive is read with the source's format, in the archive's order. Each
// file inside is a split of its own, named archive!/name, and streamed
// from the archive when its split is opened (a restored position is
// reached by reading up to it, as for gzip).

const archiveSep = "!/"

// archiveEntries lists the files inside an archive, in their order in it.
func archiveEntries(path, codec string) ([]fileInfo, error) {
	var out []fileInfo
	add := func(name string, size int64) {
		if size > 0 && !strings.HasSuffix(name, "/") {
			out = append(out, fileInfo{path: path + archiveSep + name, size: size})
		}
	}
	if codec == "zip" {
		zr, err := zip.OpenReader(path)
		if err != nil {
			return nil, fmt.Errorf("%s: not a zip archive: %w", path, err)
		}
		defer zr.Close()
		for _, f := range zr.File {
			add(f.Name, int64(f.UncompressedSize64))
		}
		return out, nil
	}
	tr, closer, err := openTar(path, codec)
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: bad %s archive: %w", path, codec, err)
		}
		if h.Typeflag == tar.TypeReg {
			add(h.Name, h.Size)
		}
	}
}

// expandArchives replaces each archive among files by the files inside it.
func expandArchives(files []fileInfo, codec string) ([]fileInfo, error) {
	var out []fileInfo
	for _, f := range files {
		inner, err := archiveEntries(f.path, codec)
		if err != nil {
			return nil, err
		}
		out = append(out, inner...)
	}
	return out, nil
}

type multiCloser []io.Closer

func (m multiCloser) Close() error {
	var first error
	for i := len(m) - 1; i >= 0; i-- {
		if err := m[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func openTar(path, codec string) (*tar.Reader, io.Closer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	closers := multiCloser{f}
	var in io.Reader = f
	if codec == "tar_gz" {
		gz, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("%s: not a tar.gz archive: %w", path, err)
		}
		closers = append(closers, gz)
		in = gz
	}
	return tar.NewReader(in), closers, nil
}

// openArchived opens the file inside an archive that split path
// archive!/name names.
func openArchived(path, codec string) (io.Reader, io.Closer, error) {
	archive, name, ok := strings.Cut(path, archiveSep)
	if !ok {
		return nil, nil, fmt.Errorf("%s: not a file inside an archive", path)
	}
	if codec == "zip" {
		zr, err := zip.OpenReader(archive)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: not a zip archive: %w", archive, err)
		}
		for _, f := range zr.File {
			if f.Name == name {
				rc, err := f.Open()
				if err != nil {
					zr.Close()
					return nil, nil, fmt.Errorf("%s: %w", path, err)
				}
				return rc, multiCloser{zr, rc}, nil
			}
		}
		zr.Close()
		return nil, nil, fmt.Errorf("%s: no %s in the archive", archive, name)
	}
	tr, closer, err := openTar(archive, codec)
	if err != nil {
		return nil, nil, err
	}
	for {
		h, err := tr.Next()
		if err != nil {
			closer.Close()
			if errors.Is(err, io.EOF) {
				return nil, nil, fmt.Errorf("%s: no %s in the archive", archive, name)
			}
			return nil, nil, fmt.Errorf("%s: bad %s archive: %w", archive, codec, err)
		}
		if h.Name == name && h.Typeflag == tar.TypeReg {
			return tr, closer, nil
		}
	}
}
