package localfile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"github.com/stactor/stactor/row"
)

// Documents: xml and excel files are parsed whole, as SeaTunnel's
// XmlReadStrategy (dom4j) and ExcelReadStrategy (POI) do, into records of
// cells held in memory; a split's position is a record index, so a
// restored reader parses the file again and continues at the next record.

// cellKind is what a document cell holds.
type cellKind uint8

const (
	cellNone   cellKind = iota // no cell: null
	cellString                 // text (all of xml's values)
	cellNumber                 // an excel number
	cellBool                   // an excel boolean
	cellDate                   // an excel number in a date format
)

// docCell is one field's value in a document record.
type docCell struct {
	kind cellKind
	s    string
	f    float64
	b    bool
	sec  int64 // cellDate: a local date-time
	nano int32
}

// docRecord holds the cells of one record by data field (sourceConfig.data).
type docRecord []docCell

// docSplit reads the records of a parsed document.
type docSplit struct {
	cfg   *sourceConfig
	sp    *split
	part  partitions
	recs  []docRecord
	excel bool // excel's conversions (POI's cell values), else xml's
	json  jsonValues
}

// openDocument reads a split's file (from inside its archive, gunzipped)
// and parses it with the format's parser.
func openDocument(cfg *sourceConfig, s *split, part partitions) (*docSplit, error) {
	data, name, err := readWhole(cfg, s.path)
	if err != nil {
		return nil, err
	}
	d := &docSplit{cfg: cfg, sp: s, part: part, excel: cfg.format == formatExcel}
	d.json.text = &cfg.values
	if d.excel {
		d.recs, err = parseExcel(cfg, s.path, name, data)
	} else {
		d.recs, err = parseXML(cfg, s.path, data)
	}
	if err != nil {
		return nil, err
	}
	if s.pos > int64(len(d.recs)) {
		return nil, fmt.Errorf("%s: position %d is past its %d records", s.path, s.pos, len(d.recs))
	}
	return d, nil
}

// readWhole reads a file, or a file inside an archive, uncompressed, and
// tells the name its format is told by: the file's (inside an archive, the
// entry's); gunzipped, the name in the gzip header, else the file's
// without its .gz, as SeaTunnel's AbstractReadStrategy names an excel file
// it gunzips (so e.xlsx.gz is read as an xlsx).
func readWhole(cfg *sourceConfig, path string) ([]byte, string, error) {
	name := path
	if i := strings.LastIndex(path, archiveSep); i >= 0 {
		name = path[i+len(archiveSep):]
	}
	var in io.Reader
	var closer io.Closer
	if cfg.archive != "" {
		r, c, err := openArchived(path, cfg.archive)
		if err != nil {
			return nil, "", err
		}
		in, closer = r, c
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		in, closer = f, f
	}
	defer closer.Close()
	if c := cfg.codec(); c != "" {
		r, dc, err := decompress(c, in, path)
		if err != nil {
			return nil, "", err
		}
		defer dc.Close()
		if gz, ok := r.(*gzip.Reader); ok {
			switch {
			case gz.Header.Name != "":
				name = gz.Header.Name
			case strings.HasSuffix(strings.ToLower(name), ".gz"):
				name = name[:len(name)-len(".gz")]
			}
		}
		in = r
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, in); err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return buf.Bytes(), name, nil
}

func (d *docSplit) close() error { return nil }

func (d *docSplit) read(cols []*row.Column, n int) (int, bool, error) {
	rows := 0
	for rows < n && d.sp.pos < int64(len(d.recs)) {
		rec := d.recs[d.sp.pos]
		for j, i := range d.cfg.proj {
			if err := d.appendCell(cols[j], rec[i]); err != nil {
				return rows, false, fmt.Errorf("%s: record %d: field %s: %w", d.sp.path, d.sp.pos+1, d.cfg.data[i].Name, err)
			}
		}
		d.part.append(cols, 1)
		d.sp.pos++
		rows++
	}
	return rows, d.sp.pos >= int64(len(d.recs)), nil
}

// appendCell converts a cell to c's type, as XmlReadStrategy.convert and
// ExcelReadStrategy.convert do. Where SeaTunnel puts "" into a field of
// another type than string (a blank xml value, a cell of no value), which
// fails later in Java, the value is null here.
func (d *docSplit) appendCell(c *row.Column, cell docCell) error {
	v, err := d.cellValue(c.Type, cell)
	if err != nil {
		return err
	}
	if v == nil {
		c.AppendNull()
		return nil
	}
	return c.AppendValue(v)
}

// cellValue is a cell's boxed value of type t (see row.Value), nil for null.
func (d *docSplit) cellValue(t *row.Type, cell docCell) (any, error) {
	switch cell.kind {
	case cellNone:
		return nil, nil
	case cellDate:
		// POI's getLocalDateTimeCellValue, narrowed by the field's type.
		switch t.ID {
		case row.TypeTimestamp:
			return row.TimestampTime(cell.sec, cell.nano), nil
		case row.TypeDate:
			return time.Unix(row.FloorDiv(cell.sec, 86400)*86400, 0).UTC(), nil
		case row.TypeTime:
			return time.Duration(row.FloorMod(cell.sec, 86400)*1e9 + int64(cell.nano)), nil
		}
	}
	s := d.cellText(cell)
	if t.ID != row.TypeString && isBlank(s) {
		return nil, nil
	}
	switch t.ID {
	case row.TypeString:
		return s, nil
	case row.TypeBoolean:
		return strings.EqualFold(s, "true"), nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt:
		f, err := parseJavaFloat(s, false)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q as %s", s, t)
		}
		return javaNarrow(f, intBits(t.ID)), nil
	case row.TypeBigInt:
		if d.excel {
			f, err := parseJavaFloat(s, false)
			if err != nil {
				return nil, fmt.Errorf("cannot parse %q as %s", s, t)
			}
			return javaLong(f), nil
		}
		// new BigDecimal(s).longValue(): truncated, the low 64 bits.
		dec, err := decimal.NewFromString(strings.TrimSpace(s))
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q as %s", s, t)
		}
		var low big.Int
		low.And(dec.Truncate(0).BigInt(), new(big.Int).SetUint64(math.MaxUint64))
		return int64(low.Uint64()), nil
	case row.TypeFloat, row.TypeDouble:
		f, err := parseJavaFloat(s, t.ID == row.TypeFloat)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q as %s", s, t)
		}
		return f, nil
	case row.TypeDecimal:
		text := strings.TrimSpace(s)
		if d.excel {
			// BigDecimal.valueOf(Double.parseDouble(s)): the double's
			// shortest decimal form.
			f, err := parseJavaFloat(s, false)
			if err != nil {
				return nil, fmt.Errorf("cannot parse %q as %s", s, t)
			}
			text = row.JavaFloat(f, 64)
		}
		dec, err := decimal.NewFromString(text)
		if err != nil {
			return nil, fmt.Errorf("cannot parse %q as %s", s, t)
		}
		return fitDecimal(t, dec)
	case row.TypeBytes:
		return []byte(s), nil
	case row.TypeDate, row.TypeTime, row.TypeTimestamp, row.TypeTimestampTZ:
		c := row.NewColumn(t, 1)
		times := &d.cfg.values
		if d.excel {
			// POI's reader parses text cells with fixed formats.
			times = &excelTextValues
		}
		if err := times.appendValue(c, s); err != nil {
			return nil, err
		}
		return c.Value(0), nil
	case row.TypeNull:
		return nil, nil
	case row.TypeArray, row.TypeMap:
		// Jackson's readValue of the text.
		c := row.NewColumn(t, 1)
		sc := &jsonScanner{b: []byte(s)}
		if err := d.json.appendValue(c, sc); err != nil {
			return nil, fmt.Errorf("%q is not a JSON %s: %w", s, t, err)
		}
		if sc.ws(); sc.i < len(sc.b) {
			return nil, fmt.Errorf("%q is not a JSON %s: data after the value", s, t)
		}
		return c.Value(0), nil
	case row.TypeRow:
		// The fields joined by field_delimiter (String.split).
		parts := d.cfg.splitNested(s)
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			if i >= len(parts) {
				break
			}
			v, err := d.cellValue(f.Type, docCell{kind: cellString, s: parts[i]})
			if err != nil {
				return nil, fmt.Errorf("field %s: %w", f.Name, err)
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s is not supported in %s files", t, d.cfg.format)
}

// cellText is String.valueOf of a cell's value: text as it is, numbers as
// Java's Double.toString, booleans as true/false.
func (d *docSplit) cellText(cell docCell) string {
	switch cell.kind {
	case cellNumber:
		return row.JavaFloat(cell.f, 64)
	case cellBool:
		if cell.b {
			return "true"
		}
		return "false"
	case cellDate:
		return row.Text(row.Timestamp, row.TimestampTime(cell.sec, cell.nano))
	}
	return cell.s
}

// excelTextValues parses date, time and timestamp text cells with the
// fixed formats of SeaTunnel's ExcelReadStrategy.
var excelTextValues = func() textValues {
	f, err := newTimeFormats(defaultDateFormat, defaultDatetimeFormat, defaultTimeFormat)
	if err != nil {
		panic(err) // the defaults are valid patterns
	}
	return textValues{times: f}
}()

// javaNarrow is Java's (byte), (short) or (int) cast of a double: NaN is
// 0, the value is clamped to the int range, then wrapped to bits.
func javaNarrow(f float64, bits int) int64 {
	var i int32
	switch {
	case math.IsNaN(f):
		i = 0
	case f >= math.MaxInt32:
		i = math.MaxInt32
	case f <= math.MinInt32:
		i = math.MinInt32
	default:
		i = int32(f)
	}
	switch bits {
	case 8:
		return int64(int8(i))
	case 16:
		return int64(int16(i))
	}
	return int64(i)
}

// javaLong is Java's (long) cast of a double.
func javaLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// splitNested is Java's String.split(field_delimiter) of a nested row's
// text in xml and excel files: trailing empty fields are dropped.
func (sc *sourceConfig) splitNested(s string) []string {
	var parts []string
	if sc.delimRE != nil {
		parts = sc.delimRE.Split(s, -1)
	} else {
		parts = strings.Split(s, sc.delim)
	}
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
