package localfile

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/stactor/stactor/row"
)

// Excel files: xlsx read by xlsx.go and written by xlsxwrite.go; the
// legacy .xls (BIFF8) read by xls.go.

// parseExcel reads the records of an xlsx file as SeaTunnel's
// ExcelReadStrategy does: the sheet sheet_name (the first by default), the
// rows after skip_header_row_number, cell j of a row being field j of the
// schema; a cell's value is its text, number, boolean, or — a number in a
// date format — a local date-time (POI's getLocalDateTimeCellValue). name
// tells xlsx from xls by its suffix, as SeaTunnel's POI reader does
// (readWhole).
func parseExcel(cfg *sourceConfig, path, name string, data []byte) ([]docRecord, error) {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".xls"):
		rows, err := parseXLSSheet(data, cfg.sheet)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return sheetRecords(cfg, path, rows)
	case !strings.HasSuffix(lower, ".xlsx"):
		// SeaTunnel: "Only support read excel file".
		return nil, fmt.Errorf("%s: not an excel file (SeaTunnel reads *.xlsx and *.xls)", path)
	}
	rows, err := xlsxSheetRows(data, cfg.sheet)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sheetRecords(cfg, path, rows)
}

// sheetRecords are the records of a sheet's rows (nil: no such row) as
// ExcelReadStrategy takes them: the rows after skip_header_row_number,
// cell j of a row being field j of the schema.
func sheetRecords(cfg *sourceConfig, path string, rows [][]docCell) ([]docRecord, error) {
	if cfg.skipHeader > int64(len(rows)) {
		return nil, fmt.Errorf("%s: skip_header_row_number %d is more than the sheet's %d rows", path, cfg.skipHeader, len(rows))
	}
	var recs []docRecord
	for r := int(cfg.skipHeader); r < len(rows); r++ {
		if rows[r] == nil {
			continue
		}
		rec := make(docRecord, len(cfg.data))
		copy(rec, rows[r])
		recs = append(recs, rec)
	}
	return recs, nil
}

// isDateFormat is POI's DateUtil.isADateFormat: a built-in date or time
// format, or a custom format with date or time letters outside quotes,
// escapes and [brackets] (elapsed [h], [m], [s] count).
func isDateFormat(id int, custom string) bool {
	switch {
	case id >= 14 && id <= 22, id >= 45 && id <= 47, id >= 27 && id <= 36, id >= 50 && id <= 58:
		if custom == "" {
			return true
		}
	}
	if custom == "" || strings.EqualFold(custom, "General") {
		return false
	}
	s := custom
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return false
			}
			i += j + 1
		case '\\', '_', '*':
			i++
		case '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return false
			}
			inner := strings.ToLower(s[i+1 : i+j])
			if inner != "" && strings.Trim(inner, "hms") == "" {
				return true
			}
			i += j
		case 'y', 'Y', 'm', 'M', 'd', 'D', 'h', 'H', 's', 'S':
			return true
		case '0', '#', '?':
			return false
		}
	}
	return false
}

// excelDate converts an Excel date serial to a local date-time as POI's
// DateUtil.getLocalDateTime: days since 1899-12-31 (1904-01-01 in the 1904
// system), Excel's phantom 1900-02-29 skipped, rounded to the millisecond.
func excelDate(serial float64, date1904 bool) (int64, int32, error) {
	if serial < 0 || math.IsNaN(serial) || serial > 2958465.99999999 {
		return 0, 0, fmt.Errorf("%v is not a valid Excel date", serial)
	}
	total := int64(math.Round(serial * 86400000))
	days, ms := total/86400000, total%86400000
	var epoch int64 // days since 1970-01-01 of day 0
	if date1904 {
		epoch = row.DaysFromCivil(1904, 1, 1)
	} else {
		epoch = row.DaysFromCivil(1899, 12, 31)
		if days >= 61 {
			days-- // after Excel's 1900-02-29
		}
	}
	sec := (epoch+days)*86400 + ms/1000
	return sec, int32(ms%1000) * 1e6, nil
}

// excelSerial is the Excel date serial of a local date-time (POI's
// DateUtil.getExcelDate), -1 before 1900 as POI.
func excelSerial(sec int64, nano int32) float64 {
	days := row.FloorDiv(sec, 86400)
	if days < row.DaysFromCivil(1900, 1, 1) {
		return -1
	}
	serial := float64(days-row.DaysFromCivil(1899, 12, 31)) + float64(row.FloorMod(sec, 86400)*1000+int64(nano)/1e6)/86400000
	if days >= row.DaysFromCivil(1900, 3, 1) {
		serial++ // Excel counts 1900-02-29
	}
	return serial
}

// excelOut writes one xlsx file as SeaTunnel's ExcelGenerator: a header row
// of the field names, then one row per record; cell i is the sink's input
// field i (so unwritten fields leave gaps, as SeaTunnel's); strings in
// text style, numbers and booleans in General, decimals as doubles, dates,
// timestamps and times as Excel dates in date_format, datetime_format and
// time_format, bytes as Java's list of byte values, maps and arrays as
// JSON, rows as their fields joined by field_delimiter. Rows are streamed
// into the file as they come (xlsxWriter).
type excelOut struct {
	cfg   *sinkConfig
	xw    *xlsxWriter
	width int
	vals  []xlsxCell
}

func newExcelOut(cfg *sinkConfig, out io.Writer) (*excelOut, error) {
	xw, err := newXLSXWriter(out, cfg.sheetName, cfg.times.datePat, cfg.times.datetimePat, cfg.times.todPat)
	if err != nil {
		return nil, err
	}
	x := &excelOut{cfg: cfg, xw: xw}
	for _, c := range cfg.cols {
		x.width = max(x.width, c+1)
	}
	x.vals = make([]xlsxCell, x.width)
	for k, c := range cfg.cols {
		x.vals[c] = xlsxCell{kind: xlsxString, v: cfg.fields[k].Name, style: xfGeneral}
	}
	if err := x.flushRow(); err != nil {
		return nil, err
	}
	return x, nil
}

func (x *excelOut) flushRow() error {
	err := x.xw.writeRow(x.vals)
	clear(x.vals)
	return err
}

// write writes rows idx of b.
func (x *excelOut) write(b *row.Batch, idx []int) error {
	if err := x.xw.room(len(idx)); err != nil {
		return err // before any row of the batch is written
	}
	for _, i := range idx {
		for k, c := range x.cfg.cols {
			col := b.Cols[c]
			if col.IsNull(i) {
				continue
			}
			v, err := x.cell(col, i)
			if err != nil {
				return fmt.Errorf("field %s: %w", x.cfg.fields[k].Name, err)
			}
			x.vals[c] = v
		}
		if err := x.flushRow(); err != nil {
			return err
		}
	}
	return nil
}

func (x *excelOut) cell(c *row.Column, i int) (xlsxCell, error) {
	t := c.Type
	text := func(s string) (xlsxCell, error) { return xlsxCell{kind: xlsxString, v: s, style: xfText}, nil }
	switch t.ID {
	case row.TypeString:
		return text(c.Str(i))
	case row.TypeBoolean:
		v := "0"
		if c.Bools[i] {
			v = "1"
		}
		return xlsxCell{kind: xlsxBool, v: v, style: xfGeneral}, nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return xlsxCell{kind: xlsxNumber, v: strconv.FormatInt(c.Ints[i], 10), style: xfGeneral}, nil
	case row.TypeFloat:
		return xlsxNumberCell(c.Floats[i], 32, xfGeneral), nil
	case row.TypeDouble:
		return xlsxNumberCell(c.Floats[i], 64, xfGeneral), nil
	case row.TypeDecimal:
		f, _ := c.Decs[i].Float64()
		return xlsxNumberCell(f, 64, xfGeneral), nil
	case row.TypeBytes:
		b := c.Bins[i]
		parts := make([]string, len(b))
		for k, v := range b {
			parts[k] = strconv.Itoa(int(int8(v)))
		}
		return text("[" + strings.Join(parts, ", ") + "]")
	case row.TypeDate:
		return xlsxNumberCell(excelSerial(c.Ints[i]*86400, 0), 64, xfDate), nil
	case row.TypeTimestamp:
		return xlsxNumberCell(excelSerial(c.Secs[i], c.Nanos[i]), 64, xfDateTime), nil
	case row.TypeTimestampTZ: // a date cell has no zone: OffsetDateTime's text
		return text(string(row.AppendJavaTimestampTZ(nil, c.Secs[i], c.Nanos[i], c.Offs[i])))
	case row.TypeTime:
		// Timestamp.valueOf(time.atDate(1970-01-01)).
		return xlsxNumberCell(excelSerial(c.Ints[i]/1e9, int32(c.Ints[i]%1e9)), 64, xfTime), nil
	case row.TypeArray, row.TypeMap:
		return text(string(appendJSONBoxed(nil, t, c.Anys[i])))
	case row.TypeRow:
		return text(x.rowText(t, c.Anys[i]))
	case row.TypeNull:
		return xlsxCell{}, nil
	}
	return xlsxCell{}, fmt.Errorf("type %s cannot be written to excel files", t)
}

// xlsxNumberCell is a number cell as POI's setCellValue(double) writes it:
// an infinity is the error #DIV/0! and NaN #NUM!; the number in its
// shortest decimal form at bits' precision (a float's 1.1 is "1.1").
func xlsxNumberCell(f float64, bits int, style int) xlsxCell {
	switch {
	case math.IsInf(f, 0):
		return xlsxCell{kind: xlsxError, v: "#DIV/0!", style: style}
	case math.IsNaN(f):
		return xlsxCell{kind: xlsxError, v: "#NUM!", style: style}
	}
	return xlsxCell{kind: xlsxNumber, v: strconv.FormatFloat(f, 'f', -1, bits), style: style}
}

// rowText is ExcelGenerator.convert of a row: its fields joined by
// field_delimiter, dates and times by the sink's formats.
func (x *excelOut) rowText(t *row.Type, v any) string {
	fields := v.([]any)
	parts := make([]string, len(fields))
	for k, f := range fields {
		ft := t.Fields[k].Type
		switch {
		case f == nil:
		case ft.ID == row.TypeRow:
			parts[k] = x.rowText(ft, f)
		case ft.ID == row.TypeArray || ft.ID == row.TypeMap:
			parts[k] = string(appendJSONBoxed(nil, ft, f))
		case ft.ID == row.TypeBytes:
			parts[k] = string(f.([]byte))
		default:
			c := row.NewColumn(ft, 1)
			if err := c.AppendValue(f); err != nil {
				parts[k] = row.Text(ft, f)
				continue
			}
			parts[k] = string(x.cfg.render.appendCol(nil, c, 0))
		}
	}
	return strings.Join(parts, x.cfg.nestedDelim)
}

// close ends the workbook.
func (x *excelOut) close() error { return x.xw.close() }
