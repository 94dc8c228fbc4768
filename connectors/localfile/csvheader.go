package localfile

import (
	"fmt"
	"strings"
)

// csv_use_header_line, as SeaTunnel's CsvReadStrategy: the first record
// of each csv file (after skip_header_row_number lines) is a header whose
// names say which column holds which schema field. A schema field is the
// column of its exact name (the last such column, as commons-csv's record
// map); a column the schema does not name is ignored, and a field no
// column names is null. A record too short to hold a column of the header
// that a schema field reads fails the read, naming the file, line, column
// and field: SeaTunnel's CsvReadStrategy.readProcess takes csvRecord.get(i)
// for each such header column, which throws for a shorter record (shorter
// records whose missing columns the schema does not read pass, as there;
// without the option a short record's missing fields are null, as before).
// Without a schema the header is skipped and each later line is the
// content field. Each file has its own header, so a file
// is one split; a restored reader reads the header again from the file's
// start.

// decode converts a record from the files' charset to UTF-8 (reusing
// l.conv); UTF-8 records are returned as they are.
func (l *lineSplit) decode(rec []byte) []byte {
	switch {
	case l.cfg.latin1 && hasHigh(rec):
		l.conv = latin1ToUTF8(l.conv, rec)
		return l.conv
	case l.cfg.charset != nil && hasHigh(rec):
		l.conv = decodeCharset(l.conv, l.cfg.charset, rec)
		return l.conv
	}
	return rec
}

// setHeader maps the data fields to the columns the header rec names.
func (l *lineSplit) setHeader(rec string) error {
	names, err := splitCSV(nil, rec, l.cfg.delim, l.cfg.quote)
	if err != nil {
		return fmt.Errorf("header: %w", err)
	}
	l.hdr = make([]int, len(l.cfg.data))
	for i := range l.hdr {
		l.hdr[i] = -1
	}
	l.hdrNames = l.hdrNames[:0]
	for k, n := range names {
		name := n.s
		if k == 0 {
			name = strings.TrimPrefix(name, "\uFEFF") // a UTF-8 byte order mark
		}
		l.hdrNames = append(l.hdrNames, strings.Clone(name))
		for i, f := range l.cfg.data {
			if f.Name == name {
				l.hdr[i] = k
			}
		}
	}
	return nil
}

// checkHeaderColumns fails a record that lacks a header column a schema
// field is read from (csvheader.go's comment says why).
func (l *lineSplit) checkHeaderColumns() error {
	for i, k := range l.hdr {
		if k >= len(l.fields) {
			return fmt.Errorf("the record has %d fields, fewer than the header's %d: no value for column %d (%q) of field %s (SeaTunnel's CsvReadStrategy fails such a record)",
				len(l.fields), len(l.hdrNames), k+1, l.hdrNames[k], l.cfg.data[i].Name)
		}
	}
	return nil
}

// readHeader reads the header of the split's file from its start, for a
// split restored past it.
func (l *lineSplit) readHeader() error {
	rr, err := openRecordsIn(l.sp.path, l.cfg.archive, l.cfg.codec(), 0, 0, l.cfg.sep(), l.cfg.quoteByte())
	if err != nil {
		return err
	}
	defer rr.close()
	skip := l.cfg.skipHeader
	for {
		rec, ok, err := rr.next()
		if err != nil {
			return fmt.Errorf("%s: header: %w", l.sp.path, err)
		}
		if !ok {
			return fmt.Errorf("%s: no header line, but the split is restored at byte %d", l.sp.path, l.sp.pos)
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(rec) == 0 {
			continue
		}
		if err := l.setHeader(string(l.decode(rec))); err != nil {
			return fmt.Errorf("%s: %w", l.sp.path, err)
		}
		return nil
	}
}
