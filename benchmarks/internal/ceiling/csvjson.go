package ceiling

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// Workload 2 as a bare loop: the CSV file WriteCSV makes (a header, then
// id,name,score,city) → id, UPPER(name), score where score >= 50 → JSON
// lines, the bytes stactor's LocalFile json sink writes for that job.
//
// What the loop does: the file is cut into workers line-aligned ranges
// of equal size (stactor cuts it into 64 MiB blocks, one reader subtask
// per block, and runs as many subtasks as its parallelism); each
// goroutine reads its range with ReadAt into a 1 MiB buffer, splits
// lines and fields by hand (no encoding/csv), parses id with
// strconv.ParseInt and score with strconv.ParseFloat, upper-cases the
// name (ASCII in place; bytes.ToUpper when a name has non-ASCII bytes),
// and appends {"id":…,"name":"…","score":…} to a bytes.Buffer that is
// written to its own output file at every 1 MiB and at the end. Scores are
// formatted as Java's Double.toString (what SeaTunnel's JSON writer does).
//
// What it does not do, and stactor does: quoted fields, null or empty
// values, other column types or orders than this file's (the schema is
// fixed in the code), UTF-8 validation, rolling output files at 1 M rows,
// staging and committing files, checkpoints, metrics, a SQL evaluator,
// batches and channels between a reader and a writer (stactor's writer
// runs in the same fused chain, so there is no hand-over either way).
// A line it cannot parse is an error that names its byte offset.

// CSVResult is one run of the loop.
type CSVResult struct {
	Wall  time.Duration
	Rows  int64    // data lines read
	Kept  int64    // lines written
	Files []string // the output files, in the order of the input ranges
}

// CSVToJSON runs the loop over the file in on workers goroutines, writing
// outDir/part-N.json for each.
func CSVToJSON(in, outDir string, workers int) (CSVResult, error) {
	var res CSVResult
	if workers < 1 {
		return res, fmt.Errorf("ceiling: workers must be at least 1, got %d", workers)
	}
	start := time.Now()
	f, err := os.Open(in)
	if err != nil {
		return res, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return res, err
	}
	cuts, err := lineCuts(f, st.Size(), workers)
	if err != nil {
		return res, err
	}
	type part struct {
		rows, kept int64
		err        error
	}
	parts := make([]part, workers)
	res.Files = make([]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		res.Files[w] = filepath.Join(outDir, fmt.Sprintf("part-%d.json", w))
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &parts[w]
			p.rows, p.kept, p.err = csvWorker(f, cuts[w], cuts[w+1], res.Files[w])
		}()
	}
	wg.Wait()
	res.Wall = time.Since(start)
	for _, p := range parts {
		if p.err != nil {
			return res, p.err
		}
		res.Rows += p.rows
		res.Kept += p.kept
	}
	return res, nil
}

// lineCuts returns workers+1 offsets: the first after the header line,
// the last the file's size, each other one just after a newline.
func lineCuts(f *os.File, size int64, workers int) ([]int64, error) {
	next := func(at int64) (int64, error) {
		buf := make([]byte, 4096)
		for at < size {
			n, err := f.ReadAt(buf, at)
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				return at + int64(i) + 1, nil
			}
			if err != nil && err != io.EOF {
				return 0, err
			}
			at += int64(n)
		}
		return size, nil
	}
	first, err := next(0) // the header
	if err != nil {
		return nil, err
	}
	cuts := []int64{first}
	for w := 1; w < workers; w++ {
		c, err := next(max(first+(size-first)*int64(w)/int64(workers)-1, cuts[w-1]))
		if err != nil {
			return nil, err
		}
		cuts = append(cuts, c)
	}
	return append(cuts, size), nil
}

const csvBuf = 1 << 20

func csvWorker(f *os.File, lo, hi int64, outPath string) (rows, kept int64, err error) {
	out, err := os.Create(outPath)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}()
	buf := make([]byte, csvBuf)
	var js bytes.Buffer
	js.Grow(csvBuf + 4096)
	carry := 0 // bytes of an unfinished line at the front of buf
	for at := lo; at < hi || carry > 0; {
		n := 0
		if at < hi {
			n, err = f.ReadAt(buf[carry:min(int64(len(buf)), int64(carry)+hi-at)], at)
			if err != nil && err != io.EOF {
				return rows, kept, err
			}
			err = nil
			if n == 0 {
				return rows, kept, fmt.Errorf("ceiling: %s shrank while read at byte %d", f.Name(), at)
			}
		}
		data := buf[:carry+n]
		lineAt := at - int64(carry)
		at += int64(n)
		for {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if at >= hi && len(data) > 0 { // a last line without a newline
					i = len(data)
				} else {
					break
				}
			}
			line := data[:i]
			data = data[min(i+1, len(data)):]
			ok, perr := convert(&js, line)
			if perr != nil {
				return rows, kept, fmt.Errorf("ceiling: line at byte %d: %w", lineAt, perr)
			}
			lineAt += int64(i) + 1
			rows++
			if ok {
				kept++
			}
			if js.Len() >= csvBuf {
				if _, err := out.Write(js.Bytes()); err != nil {
					return rows, kept, err
				}
				js.Reset()
			}
		}
		carry = copy(buf, data)
		if carry == len(buf) {
			return rows, kept, fmt.Errorf("ceiling: a line at byte %d is longer than %d bytes", lineAt, len(buf))
		}
	}
	_, err = out.Write(js.Bytes())
	return rows, kept, err
}

// convert appends the JSON line of one CSV line to js when its score is
// at least 50.
func convert(js *bytes.Buffer, line []byte) (bool, error) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	var field [4][]byte
	for k := 0; k < 3; k++ {
		i := bytes.IndexByte(line, ',')
		if i < 0 {
			return false, fmt.Errorf("%d fields, want 4", k+1)
		}
		field[k], line = line[:i], line[i+1:]
	}
	field[3] = line
	score, err := strconv.ParseFloat(string(field[2]), 64)
	if err != nil {
		return false, err
	}
	if score < 50 {
		return false, nil
	}
	id, err := strconv.ParseInt(string(field[0]), 10, 64)
	if err != nil {
		return false, err
	}
	name := field[1]
	ascii := true
	for _, c := range name {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if !ascii {
		name = bytes.ToUpper(name)
	} else { // in place: buf is the loop's own
		for i, c := range name {
			if 'a' <= c && c <= 'z' {
				name[i] = c - 'a' + 'A'
			}
		}
	}
	b := js.AvailableBuffer()
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"name":`...)
	b = appendString(b, name)
	b = append(b, `,"score":`...)
	b = appendJavaDouble(b, score)
	b = append(b, "}\n"...)
	js.Write(b)
	return true, nil
}

// appendString appends s as a JSON string as Jackson escapes it: \" \\,
// short escapes for \b \t \n \f \r, \u00XX for other control bytes.
func appendString(b, s []byte) []byte {
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20:
			b = append(b, c)
		case c == '\b':
			b = append(b, `\b`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\f':
			b = append(b, `\f`...)
		case c == '\r':
			b = append(b, `\r`...)
		default:
			b = append(b, '\\', 'u', '0', '0', "0123456789ABCDEF"[c>>4], "0123456789ABCDEF"[c&0xf])
		}
	}
	return append(b, '"')
}

// appendJavaDouble formats f as Java's Double.toString: the shortest
// digits that round-trip, plain between 10^-3 and 10^7 with at least one
// fraction digit, otherwise computerized scientific notation (1.0E7).
func appendJavaDouble(b []byte, f float64) []byte {
	if a := max(f, -f); a >= 1e-3 && a < 1e7 {
		n := len(b)
		b = strconv.AppendFloat(b, f, 'f', -1, 64)
		if bytes.IndexByte(b[n:], '.') < 0 {
			b = append(b, '.', '0')
		}
		return b
	}
	switch {
	case math.IsNaN(f):
		return append(b, `"NaN"`...) // quoted, as Jackson writes non-numbers
	case math.IsInf(f, 1):
		return append(b, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(b, `"-Infinity"`...)
	case f == 0 && math.Signbit(f):
		return append(b, "-0.0"...)
	case f == 0:
		return append(b, "0.0"...)
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := bytes.Cut(e, []byte{'e'})
	b = append(b, mant...)
	if bytes.IndexByte(mant, '.') < 0 {
		b = append(b, '.', '0')
	}
	b = append(b, 'E')
	x, _ := strconv.Atoi(string(exp))
	return strconv.AppendInt(b, int64(x), 10)
}
