package localfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"unicode/utf16"

	"github.com/richardlehane/mscfb"
)

// Legacy .xls files (Excel 97-2003, BIFF8 in an OLE2 compound file), read
// as POI's HSSFWorkbook gives them to SeaTunnel's ExcelReadStrategy: the
// Workbook stream's globals (shared strings, formats, cell styles, the
// 1904 flag, the sheets) and one sheet's cells — strings (LABELSST, LABEL),
// numbers (NUMBER, RK, MULRK), booleans and errors (BOOLERR) and the cached
// values of formulas. The record layouts are those of Microsoft's
// [MS-XLS] specification; mscfb (Apache-2.0, already excelize's) opens the
// compound file. Encrypted workbooks and BIFF5 and older are refused.

// BIFF8 record types read.
const (
	xlsBOF        = 0x0809
	xlsEOF        = 0x000a
	xlsFilePass   = 0x002f
	xlsDateMode   = 0x0022
	xlsFormat     = 0x041e
	xlsXF         = 0x00e0
	xlsBoundSheet = 0x0085
	xlsSST        = 0x00fc
	xlsContinue   = 0x003c
	xlsLabelSST   = 0x00fd
	xlsLabel      = 0x0204
	xlsNumber     = 0x0203
	xlsRK         = 0x027e
	xlsMulRK      = 0x00bd
	xlsBoolErr    = 0x0205
	xlsFormula    = 0x0006
	xlsString     = 0x0207
)

var errBadXLS = errors.New("not a valid .xls (BIFF8) workbook")

// xlsRecord is one BIFF record: its type and data, CONTINUE records
// following it kept apart (strings restart at their boundaries).
type xlsRecord struct {
	typ   uint16
	data  []byte
	conts [][]byte
	off   int // offset of the record in the stream
}

// readXLSRecords cuts the Workbook stream into records, from off to the
// EOF record of the substream starting there.
func readXLSRecords(stream []byte, off int) ([]xlsRecord, error) {
	var out []xlsRecord
	depth := 0
	for i := off; i+4 <= len(stream); {
		typ := binary.LittleEndian.Uint16(stream[i:])
		n := int(binary.LittleEndian.Uint16(stream[i+2:]))
		if i+4+n > len(stream) {
			return nil, fmt.Errorf("%w: a record runs past the end of the stream", errBadXLS)
		}
		data := stream[i+4 : i+4+n]
		switch typ {
		case xlsContinue:
			if len(out) > 0 {
				last := &out[len(out)-1]
				last.conts = append(last.conts, data)
			}
		case xlsBOF:
			if len(data) < 2 || binary.LittleEndian.Uint16(data) != 0x0600 {
				return nil, fmt.Errorf("%w: not BIFF8 (Excel 97 or later): save it as .xlsx", errBadXLS)
			}
			depth++
			out = append(out, xlsRecord{typ: typ, data: data, off: i})
		case xlsEOF:
			depth--
			if depth <= 0 {
				return out, nil
			}
		default:
			out = append(out, xlsRecord{typ: typ, data: data, off: i})
		}
		i += 4 + n
	}
	return nil, fmt.Errorf("%w: no end of substream", errBadXLS)
}

// xlsReader reads BIFF8 strings across a record and its CONTINUE records.
type xlsReader struct {
	parts [][]byte
	p, i  int
}

func (r *xlsReader) left() int { return len(r.parts[r.p]) - r.i }

// next moves to the next CONTINUE record when the current one is used up.
func (r *xlsReader) next() bool {
	for r.left() == 0 {
		if r.p+1 >= len(r.parts) {
			return false
		}
		r.p, r.i = r.p+1, 0
	}
	return true
}

func (r *xlsReader) bytes(n int) ([]byte, bool) {
	var out []byte
	for n > 0 {
		if !r.next() {
			return nil, false
		}
		k := min(n, r.left())
		out = append(out, r.parts[r.p][r.i:r.i+k]...)
		r.i += k
		n -= k
	}
	return out, true
}

func (r *xlsReader) u16() (int, bool) {
	b, ok := r.bytes(2)
	if !ok {
		return 0, false
	}
	return int(binary.LittleEndian.Uint16(b)), true
}

func (r *xlsReader) u32() (int, bool) {
	b, ok := r.bytes(4)
	if !ok {
		return 0, false
	}
	return int(binary.LittleEndian.Uint32(b)), true
}

// str reads an XLUnicodeRichExtendedString (SST) or, with rich false and a
// cch of 8 or 16 bits, XLUnicodeString and ShortXLUnicodeString. Where its
// characters continue in the next CONTINUE record, that record starts with
// a new flags byte (MS-XLS 2.4.58).
func (r *xlsReader) str(cch int, rich bool) (string, bool) {
	fb, ok := r.bytes(1)
	if !ok {
		return "", false
	}
	flags := fb[0]
	runs, ext := 0, 0
	if rich && flags&0x08 != 0 {
		if runs, ok = r.u16(); !ok {
			return "", false
		}
	}
	if rich && flags&0x04 != 0 {
		if ext, ok = r.u32(); !ok {
			return "", false
		}
	}
	var units []uint16
	for done := 0; done < cch; {
		if !r.next() {
			return "", false
		}
		if done > 0 && r.i == 0 {
			// a CONTINUE record began inside the characters
			flags = r.parts[r.p][0]
			r.i = 1
		}
		wide := flags&0x01 != 0
		size := 1
		if wide {
			size = 2
		}
		k := min(cch-done, r.left()/size)
		if k == 0 {
			return "", false
		}
		b := r.parts[r.p][r.i : r.i+k*size]
		for j := 0; j < k; j++ {
			if wide {
				units = append(units, binary.LittleEndian.Uint16(b[2*j:]))
			} else {
				units = append(units, uint16(b[j]))
			}
		}
		r.i += k * size
		done += k
	}
	if _, ok := r.bytes(4*runs + ext); !ok {
		return "", false
	}
	return string(utf16.Decode(units)), true
}

// xlsBook is what the globals substream says.
type xlsBook struct {
	date1904 bool
	sst      []string
	formats  map[int]string // custom number formats by id
	xfFormat []int          // number format id of each cell style
	sheets   []xlsSheet
}

type xlsSheet struct {
	name string
	off  int
	kind byte // 0: a worksheet
}

func parseXLSBook(stream []byte) (*xlsBook, error) {
	recs, err := readXLSRecords(stream, 0)
	if err != nil {
		return nil, err
	}
	b := &xlsBook{formats: map[int]string{}}
	for _, rec := range recs {
		d := rec.data
		r := &xlsReader{parts: append([][]byte{d}, rec.conts...)}
		switch rec.typ {
		case xlsFilePass:
			return nil, fmt.Errorf("the workbook is encrypted")
		case xlsDateMode:
			b.date1904 = len(d) >= 2 && binary.LittleEndian.Uint16(d) == 1
		case xlsFormat:
			id, ok := r.u16()
			cch, ok2 := r.u16()
			s, ok3 := r.str(cch, false)
			if !ok || !ok2 || !ok3 {
				return nil, fmt.Errorf("%w: bad FORMAT record", errBadXLS)
			}
			b.formats[id] = s
		case xlsXF:
			if len(d) < 4 {
				return nil, fmt.Errorf("%w: bad XF record", errBadXLS)
			}
			b.xfFormat = append(b.xfFormat, int(binary.LittleEndian.Uint16(d[2:])))
		case xlsBoundSheet:
			if len(d) < 8 {
				return nil, fmt.Errorf("%w: bad BOUNDSHEET record", errBadXLS)
			}
			r.i = 6
			cch, ok := r.bytes(1)
			var name string
			if ok {
				name, ok = r.str(int(cch[0]), false)
			}
			if !ok {
				return nil, fmt.Errorf("%w: bad sheet name", errBadXLS)
			}
			b.sheets = append(b.sheets, xlsSheet{name: name, off: int(binary.LittleEndian.Uint32(d)), kind: d[5]})
		case xlsSST:
			if len(d) < 8 {
				return nil, fmt.Errorf("%w: bad SST record", errBadXLS)
			}
			unique := int(binary.LittleEndian.Uint32(d[4:]))
			r.i = 8
			for k := 0; k < unique; k++ {
				cch, ok := r.u16()
				if !ok {
					return nil, fmt.Errorf("%w: the shared strings end early", errBadXLS)
				}
				s, ok := r.str(cch, true)
				if !ok {
					return nil, fmt.Errorf("%w: bad shared string %d", errBadXLS, k)
				}
				b.sst = append(b.sst, s)
			}
		}
	}
	return b, nil
}

// isDate tells whether cell style ixfe formats numbers as dates.
func (b *xlsBook) isDate(ixfe int) bool {
	if ixfe < 0 || ixfe >= len(b.xfFormat) {
		return false
	}
	id := b.xfFormat[ixfe]
	return isDateFormat(id, b.formats[id])
}

// rkValue decodes an RK number (MS-XLS 2.5.217).
func rkValue(rk uint32) float64 {
	var v float64
	if rk&2 != 0 {
		v = float64(int32(rk) >> 2)
	} else {
		v = math.Float64frombits(uint64(rk&0xfffffffc) << 32)
	}
	if rk&1 != 0 {
		v /= 100
	}
	return v
}

// parseXLSSheet reads the cells of a workbook's sheet (sheet_name, or the
// first worksheet) as rows of cells; a missing row is nil.
func parseXLSSheet(data []byte, sheet string) ([][]docCell, error) {
	cf, err := mscfb.New(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errBadXLS, err)
	}
	var stream []byte
	for e, err := cf.Next(); err == nil; e, err = cf.Next() {
		if e.Name == "Workbook" || e.Name == "Book" {
			if stream, err = io.ReadAll(e); err != nil {
				return nil, fmt.Errorf("%w: %v", errBadXLS, err)
			}
			if e.Name == "Book" {
				return nil, fmt.Errorf("%w: a BIFF5 workbook (Excel 95): save it as .xlsx", errBadXLS)
			}
			break
		}
	}
	if stream == nil {
		return nil, fmt.Errorf("%w: no Workbook stream", errBadXLS)
	}
	return parseXLSStream(stream, sheet)
}

// parseXLSStream reads a sheet's cells from a Workbook stream.
func parseXLSStream(stream []byte, sheet string) ([][]docCell, error) {
	book, err := parseXLSBook(stream)
	if err != nil {
		return nil, err
	}
	var found *xlsSheet
	for i := range book.sheets {
		s := &book.sheets[i]
		if (sheet == "" && s.kind == 0) || (sheet != "" && s.name == sheet) {
			found = s
			break
		}
	}
	if found == nil {
		if sheet != "" {
			return nil, fmt.Errorf("no sheet %q (sheet_name)", sheet)
		}
		return nil, fmt.Errorf("the workbook has no sheet")
	}
	recs, err := readXLSRecords(stream, found.off)
	if err != nil {
		return nil, err
	}
	var rows [][]docCell
	set := func(r, c int, cell docCell) {
		for len(rows) <= r {
			rows = append(rows, nil)
		}
		for len(rows[r]) <= c {
			rows[r] = append(rows[r], docCell{})
		}
		rows[r][c] = cell
	}
	number := func(v float64, ixfe int) (docCell, error) {
		if book.isDate(ixfe) {
			sec, nano, err := excelDate(v, book.date1904)
			if err != nil {
				return docCell{}, err
			}
			return docCell{kind: cellDate, sec: sec, nano: nano}, nil
		}
		return docCell{kind: cellNumber, f: v}, nil
	}
	pendingRow, pendingCol := -1, -1 // a formula whose string comes next
	for _, rec := range recs {
		d := rec.data
		if rec.typ != xlsMulRK && rec.typ != xlsString && len(d) < 6 && rec.typ != xlsBOF {
			switch rec.typ {
			case xlsLabelSST, xlsLabel, xlsNumber, xlsRK, xlsBoolErr, xlsFormula:
				return nil, fmt.Errorf("%w: short cell record at byte %d", errBadXLS, rec.off)
			}
			continue
		}
		var r, c, ixfe int
		if len(d) >= 6 {
			r, c, ixfe = int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:])), int(binary.LittleEndian.Uint16(d[4:]))
		}
		bad := func() error { return fmt.Errorf("%w: bad cell record at byte %d", errBadXLS, rec.off) }
		switch rec.typ {
		case xlsLabelSST:
			if len(d) < 10 {
				return nil, bad()
			}
			k := int(binary.LittleEndian.Uint32(d[6:]))
			if k >= len(book.sst) {
				return nil, bad()
			}
			set(r, c, docCell{kind: cellString, s: book.sst[k]})
		case xlsLabel:
			rd := &xlsReader{parts: append([][]byte{d}, rec.conts...), i: 6}
			cch, ok := rd.u16()
			s, ok2 := rd.str(cch, false)
			if !ok || !ok2 {
				return nil, bad()
			}
			set(r, c, docCell{kind: cellString, s: s})
		case xlsNumber:
			if len(d) < 14 {
				return nil, bad()
			}
			cell, err := number(math.Float64frombits(binary.LittleEndian.Uint64(d[6:])), ixfe)
			if err != nil {
				return nil, err
			}
			set(r, c, cell)
		case xlsRK:
			if len(d) < 10 {
				return nil, bad()
			}
			cell, err := number(rkValue(binary.LittleEndian.Uint32(d[6:])), ixfe)
			if err != nil {
				return nil, err
			}
			set(r, c, cell)
		case xlsMulRK:
			if len(d) < 6 || (len(d)-6)%6 != 0 {
				return nil, bad()
			}
			r, c = int(binary.LittleEndian.Uint16(d)), int(binary.LittleEndian.Uint16(d[2:]))
			for k := 4; k+6 <= len(d)-2; k += 6 {
				cell, err := number(rkValue(binary.LittleEndian.Uint32(d[k+2:])), int(binary.LittleEndian.Uint16(d[k:])))
				if err != nil {
					return nil, err
				}
				set(r, c, cell)
				c++
			}
		case xlsBoolErr:
			if len(d) < 8 {
				return nil, bad()
			}
			if d[7] == 0 {
				set(r, c, docCell{kind: cellBool, b: d[6] != 0})
			} // an error value reads as null, as POI's ERROR cells
		case xlsFormula:
			if len(d) < 14 {
				return nil, bad()
			}
			v := d[6:14]
			if v[6] == 0xff && v[7] == 0xff {
				switch v[0] {
				case 0: // a string, in the STRING record that follows
					pendingRow, pendingCol = r, c
				case 1:
					set(r, c, docCell{kind: cellBool, b: v[2] != 0})
				}
				continue
			}
			cell, err := number(math.Float64frombits(binary.LittleEndian.Uint64(v)), ixfe)
			if err != nil {
				return nil, err
			}
			set(r, c, cell)
		case xlsString:
			if pendingRow < 0 {
				continue
			}
			rd := &xlsReader{parts: append([][]byte{d}, rec.conts...)}
			cch, ok := rd.u16()
			s, ok2 := rd.str(cch, false)
			if !ok || !ok2 {
				return nil, bad()
			}
			set(pendingRow, pendingCol, docCell{kind: cellString, s: s})
			pendingRow, pendingCol = -1, -1
		}
	}
	return rows, nil
}
