package localfile

import (
	"fmt"
	"unsafe"

	"github.com/stactor/stactor/row"
)

// lineSplit reads a text, csv or json split record by record; its
// position is the byte offset of the next record.
type lineSplit struct {
	cfg  *sourceConfig
	sp   *split
	rr   *recordReader
	part partitions
	skip int64 // header records still to skip
	conv []byte
	// Strings parsed from a record must outlive the read buffer it sits
	// in. copy: a nested or content column keeps substrings of the
	// record, so the record is parsed from a copy; own: only plain string
	// fields keep text, so just their values are copied (own).
	copy, own bool
	// arena holds the copies: appended and never overwritten, so strings
	// into it stay valid; one allocation per arenaSize, not per row or field.
	arena []byte
	parse func(rec string, cols []*row.Column) error

	fields []field
	// csv_use_header_line (csvheader.go): header is true until the
	// header record is read; hdr[i] is the column of data field i, -1
	// if none.
	header   bool
	hdr      []int
	hdrNames []string // the header's column names
	// json: output column of each field name, their names, and which were
	// seen in the current record.
	index map[string]int
	names []string
	seen  []bool
	scan  jsonScanner
	json  jsonValues
}

func openLines(cfg *sourceConfig, s *split, part partitions) (*lineSplit, error) {
	rr, err := openRecordsIn(s.path, cfg.archive, cfg.codec(), s.pos, s.line, cfg.sep(), cfg.quoteByte())
	if err != nil {
		return nil, err
	}
	l := &lineSplit{cfg: cfg, sp: s, rr: rr, part: part}
	if s.pos == 0 && cfg.format != formatJSON {
		l.skip = cfg.skipHeader
	}
	if cfg.csvHeader {
		if s.pos == 0 {
			l.header = true
		} else if !cfg.content {
			if err := l.readHeader(); err != nil {
				rr.close()
				return nil, err
			}
		}
	}
	// json copies what it keeps itself (it unescapes anyway).
	text := cfg.format != formatJSON || cfg.content
	for _, f := range cfg.dataFields() {
		switch f.Type.ID {
		case row.TypeString:
			l.own = text
		case row.TypeArray, row.TypeMap, row.TypeRow:
			l.copy = text
		}
	}
	if cfg.content {
		l.copy = true
	}
	l.own = l.own && !l.copy
	switch {
	case cfg.content:
		l.parse = l.parseContent
	case cfg.format == formatCSV:
		l.parse = l.parseCSV
	case cfg.format == formatText:
		l.parse = l.parseText
	default:
		l.parse = l.parseJSON
		l.json.text = &cfg.values
		l.index = map[string]int{}
		for j, f := range cfg.dataFields() {
			l.index[f.Name] = j
			l.names = append(l.names, f.Name)
		}
		l.seen = make([]bool, len(cfg.proj))
	}
	return l, nil
}

func (l *lineSplit) close() error { return l.rr.close() }

func (l *lineSplit) read(cols []*row.Column, n int) (int, bool, error) {
	rows := 0
	for rows < n {
		if l.sp.end >= 0 && l.rr.off >= l.sp.end {
			return rows, true, nil
		}
		rec, ok, err := l.rr.next()
		if err != nil {
			return rows, false, l.errorf(err)
		}
		if !ok {
			if l.skip > 0 && l.cfg.format == formatCSV {
				// SeaTunnel's CsvReadStrategy fails such a file ("has
				// fewer lines than expected to skip"); its text reader
				// skips what there is.
				return rows, false, fmt.Errorf("%s: the file has fewer lines than skip_header_row_number (%d) asks to skip", l.sp.path, l.cfg.skipHeader)
			}
			return rows, true, nil
		}
		l.sp.pos, l.sp.line = l.rr.off, l.rr.nextLine()
		if l.skip > 0 {
			l.skip--
			continue
		}
		if len(rec) == 0 {
			continue
		}
		rec = l.decode(rec)
		if l.header {
			l.header = false
			if !l.cfg.content {
				if err := l.setHeader(string(rec)); err != nil {
					return rows, false, l.errorf(err)
				}
			}
			continue
		}
		var s string
		if l.copy {
			s = l.keep(rec)
		} else {
			// Nothing parsed from s outlives this call but through
			// keepString (errors clone it).
			s = unsafe.String(unsafe.SliceData(rec), len(rec))
		}
		if err := l.parse(s, cols); err != nil {
			return rows, false, l.errorf(err)
		}
		l.part.append(cols, 1)
		rows++
	}
	done := l.rr.done() || (l.sp.end >= 0 && l.rr.off >= l.sp.end)
	return rows, done, nil
}

// arenaSize is the size of one arena of copies: small, since an arena
// lives as long as any string in it (a batch in flight, a scratch value,
// a vector waiting in the recycling pools). 16 KiB, a few arenas to a
// batch of short strings: workload 2 of benchmarks/RESULTS.md peaks
// about 1.5 MiB lower than with 64 KiB arenas, at the same CPU; 8 KiB
// saves nothing more.
const arenaSize = 16 << 10

// keep copies a record into the arena and returns it as a string.
func (l *lineSplit) keep(rec []byte) string {
	if len(rec) == 0 {
		return ""
	}
	if len(rec) > cap(l.arena)-len(l.arena) {
		l.arena = make([]byte, 0, max(arenaSize, len(rec)))
	}
	start := len(l.arena)
	l.arena = append(l.arena, rec...)
	return unsafe.String(&l.arena[start], len(rec))
}

// keepString is a string field's value as a column may keep it: a copy in
// the arena when it points into the record (own), else s itself.
func (l *lineSplit) keepString(s string) string {
	if !l.own {
		return s
	}
	return l.keep(unsafe.Slice(unsafe.StringData(s), len(s)))
}

// errorf places a parse error at the file and line of the last record.
func (l *lineSplit) errorf(err error) error {
	if line := l.rr.lastLine(); line > 0 {
		return fmt.Errorf("%s:%d: %w", l.sp.path, line, err)
	}
	return fmt.Errorf("%s (byte %d): %w", l.sp.path, l.rr.off, err)
}

func (l *lineSplit) parseContent(rec string, cols []*row.Column) error {
	cols[0].AppendString(rec)
	return nil
}

func (l *lineSplit) parseText(rec string, cols []*row.Column) error {
	if l.cfg.delimRE != nil {
		l.fields = splitTextRE(l.fields, rec, l.cfg.delimRE)
	} else {
		l.fields = splitText(l.fields, rec, l.cfg.delim)
	}
	return l.appendFields(cols)
}

func (l *lineSplit) parseCSV(rec string, cols []*row.Column) error {
	var err error
	if l.fields, err = splitCSV(l.fields, rec, l.cfg.delim, l.cfg.quote); err != nil {
		return err
	}
	if l.hdr != nil {
		if err := l.checkHeaderColumns(); err != nil {
			return err
		}
	}
	return l.appendFields(cols)
}

// appendFields appends the split fields to the output columns: a missing
// field is null, extra fields are ignored (TextDeserializationSchema). A
// quoted csv string keeps its value even when empty or blank.
func (l *lineSplit) appendFields(cols []*row.Column) error {
	for j, i := range l.cfg.proj {
		c := cols[j]
		k := i
		if l.hdr != nil {
			k = l.hdr[i]
		}
		if k < 0 || k >= len(l.fields) {
			c.AppendNull()
			continue
		}
		f := l.fields[k]
		if c.Type.ID == row.TypeString {
			if !f.quoted && l.cfg.values.null(f.s) {
				c.AppendNull()
			} else {
				c.AppendString(l.keepString(f.s))
			}
			continue
		}
		if err := l.cfg.values.appendField(c, f.s); err != nil {
			return fmt.Errorf("field %s: %w", l.cfg.data[i].Name, err)
		}
	}
	return nil
}

func (l *lineSplit) parseJSON(rec string, cols []*row.Column) error {
	s := &l.scan
	s.b, s.i = unsafe.Slice(unsafe.StringData(rec), len(rec)), 0
	clear(l.seen)
	if err := s.expect('{'); err != nil {
		return fmt.Errorf("malformed JSON: %w", err)
	}
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			key, err := s.str()
			if err != nil {
				return fmt.Errorf("malformed JSON: %w", err)
			}
			j, want := l.index[string(key)]
			if err := s.expect(':'); err != nil {
				return fmt.Errorf("malformed JSON: %w", err)
			}
			if !want {
				if err := s.skip(); err != nil {
					return fmt.Errorf("malformed JSON: %w", err)
				}
			} else {
				if l.seen[j] {
					dropLast(cols[j]) // a repeated key: the last one wins, as in Jackson
				}
				if err := l.json.appendValue(cols[j], s); err != nil {
					return fmt.Errorf("field %s: %w", l.names[j], err)
				}
				l.seen[j] = true
			}
			done, err := s.more('}')
			if err != nil {
				return fmt.Errorf("malformed JSON: %w", err)
			}
			if done {
				break
			}
		}
	}
	if s.ws(); s.i < len(s.b) {
		return fmt.Errorf("malformed JSON: %w", s.errorf("unexpected data after the object"))
	}
	for j, seen := range l.seen {
		if !seen {
			cols[j].AppendNull()
		}
	}
	return nil
}

// dropLast removes a column's last value.
func dropLast(c *row.Column) {
	n := c.Len() - 1
	if c.Nulls != nil {
		c.Nulls = c.Nulls[:n]
	}
	switch c.Type.Storage() {
	case row.StoreInt:
		c.Ints = c.Ints[:n]
	case row.StoreTimestamp:
		c.Secs, c.Nanos = c.Secs[:n], c.Nanos[:n]
	case row.StoreTimestampTZ:
		c.Secs, c.Nanos, c.Offs = c.Secs[:n], c.Nanos[:n], c.Offs[:n]
	case row.StoreFloat:
		c.Floats = c.Floats[:n]
	case row.StoreString:
		c.Strs = c.Strs[:n]
	case row.StoreBool:
		c.Bools = c.Bools[:n]
	case row.StoreBytes:
		c.Bins = c.Bins[:n]
	case row.StoreDecimal:
		c.Decs = c.Decs[:n]
	case row.StoreAny:
		c.Anys = c.Anys[:n]
	}
}
