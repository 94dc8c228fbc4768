package localfile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/stactor/stactor/connectors/localfile/lzop"
)

// recordBuffer is the initial read buffer of a record reader; it grows to
// hold a record longer than itself. 128 KiB holds thousands of typical
// records, so a read call costs next to nothing per record, and keeps a
// reader's buffer (one per reader subtask, live for the whole read) small:
// at 1 MiB the two readers of a 2-core job held 2 MiB, twice that in peak
// heap at the default GOGC.
const recordBuffer = 128 << 10

// recordReader cuts a file (or the gzip stream in it) into records: lines
// ending in sep, or — for csv, quote != 0 — records whose newlines inside
// quoted fields do not end them (RFC 4180). A "\n" separator stands for
// every line ending: "\n", "\r\n" and a lone "\r" each end a line, as in
// Java's BufferedReader.lines(), which SeaTunnel's readers use. It tracks the
// offset (in the uncompressed stream) of the next record, which is a
// split's position, and line numbers for messages.
type recordReader struct {
	f    *os.File
	gz   io.Closer // the decompressor, if any
	arch io.Closer // a file inside an archive: closes the archive's streams
	in   io.Reader
	buf  []byte
	lo   int // unread data is buf[lo:hi]
	hi   int
	eof  bool
	sep  []byte
	crlf bool // sep is "\n": any of "\n", "\r\n", "\r" ends a line
	// sepLines is the number of newlines in sep.
	sepLines int64
	// quote is the csv quote character, 0 for line formats.
	quote byte
	// scan state of a record spanning refills: bytes of buf[lo:] already
	// scanned, and (csv) whether the scan ended inside quotes.
	scanned int
	inQuote bool

	// off is the stream offset of buf[lo], the next record.
	off int64
	// line is the line number of the next record and recLine that of the
	// record last returned. They are absolute when lineBase >= 0; a block
	// opened mid-file counts from 1 and sets lineBase (the newlines before
	// the opening offset) only when a message needs it.
	line, recLine int64
	lineBase      int64
	path          string
	openOff       int64
	// opened is the plain file as it was when opened: at the end it must
	// be the same, or the file changed under the reader (changed).
	opened os.FileInfo
}

// openRecords opens path at stream offset pos. line is the line number at
// pos, 0 if unknown.
func openRecords(path string, codec string, pos, line int64, sep string, quote byte) (*recordReader, error) {
	return openRecordsIn(path, "", codec, pos, line, sep, quote)
}

// openRecordsIn is openRecords for a file inside an archive of codec
// archive (zip, tar, tar_gz) too; "" for a plain file. codec is the
// stream's compression: "gzip", "lzo" or "".
func openRecordsIn(path, archive string, codec string, pos, line int64, sep string, quote byte) (*recordReader, error) {
	r := &recordReader{buf: make([]byte, recordBuffer), sep: []byte(sep), crlf: sep == "\n", quote: quote,
		sepLines: int64(strings.Count(sep, "\n")), line: line, path: path, openOff: pos}
	if archive != "" {
		in, closer, err := openArchived(path, archive)
		if err != nil {
			return nil, err
		}
		r.in, r.arch = in, closer
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r.f, r.in = f, f
		if r.opened, err = f.Stat(); err != nil {
			f.Close()
			return nil, err
		}
		if codec == "" && pos > r.opened.Size() {
			f.Close()
			return nil, fmt.Errorf("%s is %d bytes, shorter than the %d already read from it: it changed since", path, r.opened.Size(), pos)
		}
	}
	switch {
	case pos == 0:
		r.line = 1
	case line <= 0:
		r.line, r.lineBase = 1, -1
	}
	if err := r.seek(codec, pos); err != nil {
		r.close()
		return nil, err
	}
	r.off = pos
	return r, nil
}

// seek moves the stream to offset pos: a seek for a plain file, a read
// up to it (counting lines) for compressed and archived streams.
func (r *recordReader) seek(codec string, pos int64) error {
	var err error
	path := r.path
	if codec != "" {
		if r.in, r.gz, err = decompress(codec, r.in, path); err != nil {
			return err
		}
	}
	if r.f == nil || codec != "" {
		// A compressed or archived stream cannot seek: read up to pos,
		// counting lines.
		var count int64
		for remain := pos; remain > 0; {
			n, err := r.in.Read(r.buf[:min(int64(len(r.buf)), remain)])
			count += int64(bytes.Count(r.buf[:n], []byte{'\n'}))
			remain -= int64(n)
			if err == io.EOF && remain > 0 {
				return fmt.Errorf("%s: position %d is past the end of the stream", path, pos)
			}
			if err != nil && err != io.EOF {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		if r.lineBase < 0 {
			r.line, r.lineBase = count+1, 0
		}
	} else if pos > 0 {
		if _, err := r.f.Seek(pos, io.SeekStart); err != nil {
			return err
		}
	}
	return nil
}

func (r *recordReader) close() error {
	var err error
	if r.gz != nil {
		err = r.gz.Close()
	}
	closers := []io.Closer{r.arch}
	if r.f != nil {
		closers = append(closers, r.f)
	}
	for _, c := range closers {
		if c == nil {
			continue
		}
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// decompress wraps in in the decoder of codec ("gzip" or "lzo").
func decompress(codec string, in io.Reader, path string) (io.Reader, io.Closer, error) {
	if codec == "lzo" {
		z, err := lzop.NewReader(in)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
		return z, io.NopCloser(z), nil
	}
	br := bufio.NewReader(in)
	if !startsGzip(br) {
		// SeaTunnel's text, csv and json writers write a gzip file plain
		// under its .gz name (and its readers read it plain): read such a
		// file as it is. The plan warns about it (plainGzipWarnings).
		return br, io.NopCloser(nil), nil
	}
	gz, err := gzip.NewReader(br)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not gzip: %w", path, err)
	}
	return gz, gz, nil
}

// done tells whether every record has been read.
func (r *recordReader) done() bool { return r.eof && r.lo == r.hi }

// fill reads more data after buf[lo:hi], moving it to the front or
// growing the buffer when full.
func (r *recordReader) fill() error {
	if r.lo > 0 {
		n := copy(r.buf, r.buf[r.lo:r.hi])
		r.lo, r.hi = 0, n
	}
	if r.hi == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.hi])
		r.buf = nb
	}
	n, err := r.in.Read(r.buf[r.hi:])
	r.hi += n
	if errors.Is(err, io.EOF) {
		r.eof = true
		return r.changed()
	}
	return err
}

// changed is an error when the plain file at its end is not the file that
// was opened — truncated, rewritten or appended to while being read — so a
// torn last record or a partial read never passes for the whole file.
func (r *recordReader) changed() error {
	if r.f == nil || r.opened == nil {
		return nil
	}
	now, err := r.f.Stat()
	if err != nil {
		return err
	}
	if now.Size() != r.opened.Size() || !now.ModTime().Equal(r.opened.ModTime()) {
		return fmt.Errorf("%s changed while it was being read (%d bytes, modified %s when opened; now %d bytes, modified %s)",
			r.path, r.opened.Size(), r.opened.ModTime().Format(time.RFC3339Nano), now.Size(), now.ModTime().Format(time.RFC3339Nano))
	}
	return nil
}

// next returns the next record (without its separator), valid until the
// next call, and false at the end.
func (r *recordReader) next() ([]byte, bool, error) {
	for {
		end, sepLen := r.find()
		if end >= 0 {
			return r.take(end, sepLen), true, nil
		}
		if r.eof {
			if r.lo == r.hi {
				return nil, false, nil
			}
			if r.quote != 0 && r.inQuote {
				r.recLine = r.line
				return nil, false, errUnterminatedQuote
			}
			return r.take(r.hi-r.lo, 0), true, nil
		}
		if err := r.fill(); err != nil {
			return nil, false, err
		}
	}
}

var errUnterminatedQuote = errors.New("unterminated quoted field at end of file")

// find locates the end of the next record in buf[lo:hi]: its length and
// the length of the separator after it, or -1.
func (r *recordReader) find() (int, int) {
	data := r.buf[r.lo:r.hi]
	if r.quote == 0 && r.crlf {
		i := indexEOL(data[r.scanned:])
		if i < 0 {
			r.scanned = len(data)
			return -1, 0
		}
		i += r.scanned
		n, more := r.eolLen(data, i)
		if more {
			r.scanned = i // the byte after this "\r" is still to come
			return -1, 0
		}
		return i, n
	}
	if r.quote == 0 {
		var i int
		if len(r.sep) == 1 {
			i = bytes.IndexByte(data[r.scanned:], r.sep[0])
		} else {
			i = bytes.Index(data[r.scanned:], r.sep)
		}
		if i < 0 {
			r.scanned = max(0, len(data)-len(r.sep)+1)
			return -1, 0
		}
		return r.scanned + i, len(r.sep)
	}
	// Jump from quote to quote and to newlines; a doubled quote toggles
	// twice, so parity alone tells whether a newline is inside quotes.
	i := r.scanned
	for i < len(data) {
		if r.inQuote {
			j := bytes.IndexByte(data[i:], r.quote)
			if j < 0 {
				break
			}
			i += j + 1
			r.inQuote = false
			continue
		}
		rest := data[i:]
		nl := indexEOL(rest)
		lim := rest
		if nl >= 0 {
			lim = rest[:nl]
		}
		if j := bytes.IndexByte(lim, r.quote); j >= 0 {
			i += j + 1
			r.inQuote = true
			continue
		}
		if nl >= 0 {
			n, more := r.eolLen(data, i+nl)
			if more {
				r.scanned = i + nl
				return -1, 0
			}
			return i + nl, n
		}
		break
	}
	r.scanned = len(data)
	return -1, 0
}

// indexEOL is the index of the first "\r" or "\n" in b, or -1.
func indexEOL(b []byte) int {
	// Two byte searches (vectorised) beat one loop over both bytes.
	nl := bytes.IndexByte(b, '\n')
	lim := b
	if nl >= 0 {
		lim = b[:nl]
	}
	if cr := bytes.IndexByte(lim, '\r'); cr >= 0 {
		return cr
	}
	return nl
}

// eolLen is the length of the line ending at data[i] ("\n" or "\r"): 2
// for "\r\n". more is true when data ends in that "\r" before the end of
// the stream, so whether a "\n" follows is not known yet.
func (r *recordReader) eolLen(data []byte, i int) (n int, more bool) {
	if data[i] == '\n' {
		return 1, false
	}
	if i+1 < len(data) {
		if data[i+1] == '\n' {
			return 2, false
		}
		return 1, false
	}
	return 1, !r.eof
}

// take consumes a record of n bytes and the separator after it.
func (r *recordReader) take(n, sepLen int) []byte {
	rec := r.buf[r.lo : r.lo+n]
	r.recLine = r.line
	if r.quote != 0 || !r.crlf {
		r.line += int64(bytes.Count(rec, []byte{'\n'}))
	}
	if sepLen > 0 {
		r.line += r.sepLines
	}
	r.lo += n + sepLen
	r.off += int64(n + sepLen)
	r.scanned, r.inQuote = 0, false
	if r.crlf && n > 0 && rec[n-1] == '\r' {
		rec = rec[:n-1]
	}
	return rec
}

// nextLine is the absolute line number of the next record, 0 when not
// known without counting.
func (r *recordReader) nextLine() int64 {
	if r.lineBase < 0 {
		return 0
	}
	return r.line + r.lineBase
}

// lastLine is the absolute line number of the record last returned,
// counting the newlines before a mid-file block's start once if needed.
func (r *recordReader) lastLine() int64 {
	if r.lineBase < 0 {
		n, err := countLines(r.path, r.openOff)
		if err != nil {
			return 0
		}
		r.lineBase = n
	}
	return r.recLine + r.lineBase
}

// countLines counts the newlines in the first n bytes of path.
func countLines(path string, n int64) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	var count int64
	for n > 0 {
		k, err := f.Read(buf[:min(int64(len(buf)), n)])
		count += int64(bytes.Count(buf[:k], []byte{'\n'}))
		n -= int64(k)
		if err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return 0, err
		}
	}
	return count, nil
}
