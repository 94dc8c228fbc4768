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
// column names is null. Without a schema the header is skipped and each
// later line is the content field. Each file has its own header, so a file
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
	for k, n := range names {
		name := n.s
		if k == 0 {
			name = strings.TrimPrefix(name, "\uFEFF") // a UTF-8 byte order mark
		}
		for i, f := range l.cfg.data {
			if f.Name == name {
				l.hdr[i] = k
			}
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
