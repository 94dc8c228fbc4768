package localfile

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/stactor/stactor/row"
)

// Excel files: xlsx read and written with excelize (BSD-3-Clause); the
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
	f, err := excelize.OpenReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%s: not an xlsx file: %w", path, err)
	}
	defer f.Close()
	sheet := cfg.sheet
	if sheet == "" {
		list := f.GetSheetList()
		if len(list) == 0 {
			return nil, fmt.Errorf("%s: the workbook has no sheet", path)
		}
		sheet = list[0]
	} else if idx, err := f.GetSheetIndex(sheet); err != nil || idx < 0 {
		return nil, fmt.Errorf("%s: no sheet %q (sheet_name)", path, sheet)
	}
	props, err := f.GetWorkbookProps()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	date1904 := props.Date1904 != nil && *props.Date1904
	raw, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, fmt.Errorf("%s: sheet %q: %w", path, sheet, err)
	}
	dateStyle := map[int]bool{}
	isDate := func(axis string) bool {
		id, err := f.GetCellStyle(sheet, axis)
		if err != nil {
			return false
		}
		d, ok := dateStyle[id]
		if !ok {
			if st, err := f.GetStyle(id); err == nil {
				custom := ""
				if st.CustomNumFmt != nil {
					custom = *st.CustomNumFmt
				}
				d = isDateFormat(st.NumFmt, custom)
			}
			dateStyle[id] = d
		}
		return d
	}
	rows := make([][]docCell, len(raw))
	for r, cells := range raw {
		if len(cells) == 0 {
			continue // no such row (POI's getRow is null)
		}
		rows[r] = make([]docCell, len(cells))
		for j, v := range cells {
			axis, _ := excelize.CoordinatesToCellName(j+1, r+1)
			typ, err := f.GetCellType(sheet, axis)
			if err != nil {
				return nil, fmt.Errorf("%s: cell %s: %w", path, axis, err)
			}
			switch typ {
			case excelize.CellTypeSharedString, excelize.CellTypeInlineString, excelize.CellTypeFormula:
				rows[r][j] = docCell{kind: cellString, s: v}
			case excelize.CellTypeBool:
				rows[r][j] = docCell{kind: cellBool, b: v == "1" || strings.EqualFold(v, "true")}
			case excelize.CellTypeError:
				// POI's ERROR cells read as null.
			case excelize.CellTypeDate:
				t, err := time.Parse(time.RFC3339Nano, v)
				if err != nil {
					if t, err = time.Parse("2006-01-02T15:04:05.999999999", v); err != nil {
						return nil, fmt.Errorf("%s: cell %s: bad date %q", path, axis, v)
					}
				}
				sec, nano := row.TimestampOf(t)
				rows[r][j] = docCell{kind: cellDate, sec: sec, nano: nano}
			default:
				if v == "" {
					continue // a blank cell: null
				}
				n, err := strconv.ParseFloat(v, 64)
				if err != nil {
					rows[r][j] = docCell{kind: cellString, s: v}
					continue
				}
				if isDate(axis) {
					sec, nano, err := excelDate(n, date1904)
					if err != nil {
						return nil, fmt.Errorf("%s: cell %s: %w", path, axis, err)
					}
					rows[r][j] = docCell{kind: cellDate, sec: sec, nano: nano}
				} else {
					rows[r][j] = docCell{kind: cellNumber, f: n}
				}
			}
		}
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
// JSON, rows as their fields joined by field_delimiter. Rows go to
// excelize's stream writer, which spills to a temporary file.
type excelOut struct {
	cfg   *sinkConfig
	file  *excelize.File
	sw    *excelize.StreamWriter
	next  int // the next row number, 1-based
	width int
	// styles
	general, text, date, datetime, clock int
	vals                                 []any
}

func newExcelOut(cfg *sinkConfig) (*excelOut, error) {
	f := excelize.NewFile()
	x := &excelOut{cfg: cfg, file: f, next: 1}
	sheet := "Sheet1"
	if cfg.sheetName != "" && cfg.sheetName != sheet {
		if err := f.SetSheetName(sheet, cfg.sheetName); err != nil {
			f.Close()
			return nil, fmt.Errorf("sheet_name %q: %w", cfg.sheetName, err)
		}
		sheet = cfg.sheetName
	}
	var err error
	style := func(s *excelize.Style) int {
		if err != nil {
			return 0
		}
		var id int
		id, err = f.NewStyle(s)
		return id
	}
	custom := func(p string) *excelize.Style { return &excelize.Style{CustomNumFmt: &p} }
	x.general = style(&excelize.Style{NumFmt: 0})
	x.text = style(&excelize.Style{NumFmt: 49})
	x.date = style(custom(cfg.times.datePat))
	x.datetime = style(custom(cfg.times.datetimePat))
	x.clock = style(custom(cfg.times.todPat))
	if err == nil {
		x.sw, err = f.NewStreamWriter(sheet)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	for _, c := range cfg.cols {
		x.width = max(x.width, c+1)
	}
	x.vals = make([]any, x.width)
	for k, c := range cfg.cols {
		x.vals[c] = cfg.fields[k].Name
	}
	if err := x.flushRow(); err != nil {
		x.file.Close()
		return nil, err
	}
	return x, nil
}

func (x *excelOut) flushRow() error {
	axis, _ := excelize.CoordinatesToCellName(1, x.next)
	if err := x.sw.SetRow(axis, x.vals); err != nil {
		return err
	}
	x.next++
	clear(x.vals)
	return nil
}

// write writes rows idx of b.
func (x *excelOut) write(b *row.Batch, idx []int) error {
	if x.next+len(idx) > excelize.TotalRows+1 {
		return fmt.Errorf("an xlsx sheet holds at most %d rows (lower batch_size)", excelize.TotalRows)
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

func (x *excelOut) cell(c *row.Column, i int) (any, error) {
	t := c.Type
	switch t.ID {
	case row.TypeString:
		return excelize.Cell{StyleID: x.text, Value: c.Str(i)}, nil
	case row.TypeBoolean:
		return excelize.Cell{StyleID: x.general, Value: c.Bools[i]}, nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		return excelize.Cell{StyleID: x.general, Value: c.Ints[i]}, nil
	case row.TypeFloat:
		return excelize.Cell{StyleID: x.general, Value: float32(c.Floats[i])}, nil
	case row.TypeDouble:
		return excelize.Cell{StyleID: x.general, Value: c.Floats[i]}, nil
	case row.TypeDecimal:
		f, _ := c.Decs[i].Float64()
		return excelize.Cell{StyleID: x.general, Value: f}, nil
	case row.TypeBytes:
		b := c.Bins[i]
		parts := make([]string, len(b))
		for k, v := range b {
			parts[k] = strconv.Itoa(int(int8(v)))
		}
		return excelize.Cell{StyleID: x.text, Value: "[" + strings.Join(parts, ", ") + "]"}, nil
	case row.TypeDate:
		return excelize.Cell{StyleID: x.date, Value: excelSerial(c.Ints[i]*86400, 0)}, nil
	case row.TypeTimestamp:
		return excelize.Cell{StyleID: x.datetime, Value: excelSerial(c.Secs[i], c.Nanos[i])}, nil
	case row.TypeTimestampTZ: // a date cell has no zone: OffsetDateTime's text
		return excelize.Cell{StyleID: x.text, Value: string(row.AppendJavaTimestampTZ(nil, c.Secs[i], c.Nanos[i], c.Offs[i]))}, nil
	case row.TypeTime:
		// Timestamp.valueOf(time.atDate(1970-01-01)).
		return excelize.Cell{StyleID: x.clock, Value: excelSerial(c.Ints[i]/1e9, int32(c.Ints[i]%1e9))}, nil
	case row.TypeArray, row.TypeMap:
		return excelize.Cell{StyleID: x.text, Value: string(appendJSONBoxed(nil, t, c.Anys[i]))}, nil
	case row.TypeRow:
		return excelize.Cell{StyleID: x.text, Value: x.rowText(t, c.Anys[i])}, nil
	case row.TypeNull:
		return nil, nil
	}
	return nil, fmt.Errorf("type %s cannot be written to excel files", t)
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

// close writes the workbook to out.
func (x *excelOut) close(out io.Writer) error {
	defer x.file.Close()
	if err := x.sw.Flush(); err != nil {
		return err
	}
	return x.file.Write(out)
}
