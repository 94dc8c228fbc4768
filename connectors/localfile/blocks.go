package localfile

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// blockSize is the size above which an uncompressed text, csv or json file
// is read as several splits of about this size; a variable so that tests
// can lower it.
var blockSize int64 = 64 << 20

// splitsOf cuts a file into splits: one for parquet and orc, compressed and small
// files, else blocks that start at record starts (after the header lines).
func (sc *sourceConfig) splitsOf(f fileInfo) ([]*split, error) {
	switch sc.format {
	case formatParquet, formatORC, formatBinary, formatXML, formatExcel:
		return []*split{{path: f.path, end: -1}}, nil
	}
	if sc.gzip || sc.lzo || sc.archive != "" || sc.csvHeader || f.size <= blockSize {
		return []*split{{path: f.path, end: -1}}, nil
	}
	bounds, err := sc.blockBounds(f)
	if err != nil {
		return nil, err
	}
	out := make([]*split, len(bounds))
	for i, b := range bounds {
		end := int64(-1)
		if i+1 < len(bounds) {
			end = bounds[i+1]
		}
		out[i] = &split{path: f.path, start: b, end: end, pos: b}
	}
	return out, nil
}

// headerEnd is the offset after the header records a reader skips.
func (sc *sourceConfig) headerEnd(path string) (int64, error) {
	if sc.skipHeader == 0 || sc.format == formatJSON {
		return 0, nil
	}
	rr, err := openRecords(path, "", 0, 0, sc.sep(), sc.quoteByte())
	if err != nil {
		return 0, err
	}
	defer rr.close()
	for i := int64(0); i < sc.skipHeader; i++ {
		if _, ok, err := rr.next(); err != nil || !ok {
			return rr.off, err
		}
	}
	return rr.off, nil
}

// sep is the record separator as it appears in the file's bytes.
func (sc *sourceConfig) sep() string {
	if sc.format != formatText {
		return "\n"
	}
	if sc.latin1 {
		return string(utf8ToLatin1(nil, []byte(sc.rowDelim)))
	}
	if sc.charset != nil {
		return string(encodeCharset(nil, sc.charset, []byte(sc.rowDelim)))
	}
	return sc.rowDelim
}

func (sc *sourceConfig) quoteByte() byte {
	if sc.format == formatCSV {
		return sc.quote
	}
	return 0
}

// blockBounds are the start offsets of a file's blocks: 0, then for each
// multiple of blockSize the first record start at or after it. csv records
// may hold newlines in quotes, so for csv the file is scanned once from the
// start to know which newlines end records.
func (sc *sourceConfig) blockBounds(fi fileInfo) ([]int64, error) {
	hdr, err := sc.headerEnd(fi.path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(fi.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	bounds := []int64{0}
	next := max(blockSize, hdr)
	if sc.format == formatCSV {
		buf := make([]byte, 1<<20)
		var off int64
		inQuote := false
		for {
			n, err := f.Read(buf)
			for i, c := range buf[:n] {
				if c == sc.quote {
					inQuote = !inQuote
				} else if c == '\n' && !inQuote {
					if start := off + int64(i) + 1; start >= next && start < fi.size {
						bounds = append(bounds, start)
						next = (start/blockSize + 1) * blockSize
					}
				}
			}
			off += int64(n)
			if errors.Is(err, io.EOF) || n == 0 {
				return bounds, nil
			}
			if err != nil {
				return nil, err
			}
		}
	}
	sep := []byte(sc.sep())
	buf := make([]byte, 64<<10)
	for next < fi.size {
		// The first record start at or after next: just after the first
		// separator that ends at or after next.
		from := max(0, next-int64(len(sep)))
		start := int64(-1)
		var carry []byte
		for pos := from; start < 0; {
			n, err := f.ReadAt(buf, pos)
			data := append(carry, buf[:n]...)
			if i := bytes.Index(data, sep); i >= 0 {
				start = pos - int64(len(carry)) + int64(i+len(sep))
				break
			}
			if n == 0 || errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			if keep := len(sep) - 1; keep > 0 && len(data) >= keep {
				carry = append([]byte(nil), data[len(data)-keep:]...)
			} else {
				carry = nil
			}
			pos += int64(n)
		}
		if start < 0 || start >= fi.size {
			break
		}
		bounds = append(bounds, start)
		next = (start/blockSize + 1) * blockSize
	}
	return bounds, nil
}
