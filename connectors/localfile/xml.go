package localfile

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/encoding/ianaindex"

	"github.com/stactor/stactor/row"
)

// parseXML reads the records of an xml file as SeaTunnel's XmlReadStrategy
// does: every element named xml_row_tag anywhere in the document (XPath
// //tag), in document order; its fields are its attributes
// (xml_use_attr_format) or the text of its child elements, matched to the
// schema by name (others are ignored, the last of a repeated name wins);
// an element with none of the schema's fields is no record. The file is
// decoded with the encoding option, whatever its declaration says.
func parseXML(cfg *sourceConfig, path string, data []byte) ([]docRecord, error) {
	switch {
	case cfg.latin1:
		data = latin1ToUTF8(nil, data)
	case cfg.charset != nil:
		data = decodeCharset(nil, cfg.charset, data)
	}
	index := make(map[string]int, len(cfg.data))
	for i, f := range cfg.data {
		index[f.Name] = i
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	// Already UTF-8: the declared encoding is not applied again.
	dec.CharsetReader = func(_ string, in io.Reader) (io.Reader, error) { return in, nil }

	var recs []docRecord
	var seen []bool // per record: has a schema field
	// open is the stack of open elements: the record index an element is
	// (-1 if none), and for a child of a record, the field it sets.
	type elem struct {
		rec   int
		field int // a record's child element of a schema field, -1 if not
		owner int // the record whose child this is, -1 if none
		text  strings.Builder
	}
	var open []*elem
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: not a well-formed xml file: %w", path, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			e := &elem{rec: -1, field: -1, owner: -1}
			if n := len(open); n > 0 && open[n-1].rec >= 0 && !cfg.xmlAttr {
				if i, ok := index[t.Name.Local]; ok {
					e.owner, e.field = open[n-1].rec, i
				}
			}
			if t.Name.Local == cfg.xmlRowTag {
				e.rec = len(recs)
				rec := make(docRecord, len(cfg.data))
				recs = append(recs, rec)
				seen = append(seen, false)
				if cfg.xmlAttr {
					for _, a := range t.Attr {
						if i, ok := index[a.Name.Local]; ok {
							rec[i] = docCell{kind: cellString, s: a.Value}
							seen[e.rec] = true
						}
					}
				}
			}
			open = append(open, e)
		case xml.CharData:
			if n := len(open); n > 0 && open[n-1].field >= 0 {
				open[n-1].text.Write(t)
			}
		case xml.EndElement:
			n := len(open)
			if n == 0 {
				continue
			}
			e := open[n-1]
			open = open[:n-1]
			if e.field >= 0 {
				recs[e.owner][e.field] = docCell{kind: cellString, s: e.text.String()}
				seen[e.owner] = true
			}
		}
	}
	out := recs[:0]
	for i, r := range recs {
		if seen[i] {
			out = append(out, r)
		}
	}
	return out, nil
}

// xmlOut writes one xml file as SeaTunnel's XmlWriter does (dom4j's pretty
// print, tab indents): a declaration, the root element, one element per
// row with the fields as attributes or child elements, values as Java
// prints them, null as empty.
type xmlOut struct {
	cfg *sinkConfig
	buf []byte
}

func (x *xmlOut) header(encodingName string) []byte {
	b := fmt.Appendf(nil, "<?xml version=\"1.0\" encoding=\"%s\"?>\n\n<", encodingName)
	b = append(b, x.cfg.xmlRootTag...)
	return append(b, ">"...)
}

func (x *xmlOut) footer() []byte {
	return []byte("</" + x.cfg.xmlRootTag + ">")
}

// appendRow renders row i of the sink's columns as one element. A value
// with a character XML 1.0 cannot hold (U+0000 and the other C0 controls
// but tab, newline and carriage return) is an error: dom4j writes it as it
// is, making a file no xml parser reads.
func (x *xmlOut) appendRow(b []byte, cols []*row.Column, i int) ([]byte, error) {
	for k, c := range cols {
		if r, bad := badXMLChar(x.text(c.Type, c.Value(i))); bad {
			return b, fmt.Errorf("field %s: the character %U cannot be written to an xml file", x.cfg.fields[k].Name, r)
		}
	}
	b = append(b, '\t', '<')
	b = append(b, x.cfg.xmlRowTag...)
	if x.cfg.xmlAttr {
		for k, c := range cols {
			b = append(b, ' ')
			b = append(b, x.cfg.fields[k].Name...)
			b = append(b, `="`...)
			b = appendXMLEscaped(b, x.text(c.Type, c.Value(i)), true)
			b = append(b, '"')
		}
		return append(b, "/>"...), nil
	}
	b = append(b, '>')
	for k, c := range cols {
		name := x.cfg.fields[k].Name
		b = append(b, "\n\t\t<"...)
		b = append(b, name...)
		v := x.text(c.Type, c.Value(i))
		if v == "" {
			b = append(b, "/>"...)
			continue
		}
		b = append(b, '>')
		b = appendXMLEscaped(b, v, false)
		b = append(b, "</"...)
		b = append(b, name...)
		b = append(b, '>')
	}
	b = append(b, "\n\t</"...)
	b = append(b, x.cfg.xmlRowTag...)
	return append(b, '>'), nil
}

// badXMLChar finds a character outside XML 1.0's Char production.
func badXMLChar(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20, r >= 0xd800 && r < 0xe000, r == 0xfffe, r == 0xffff:
			return r, true
		}
	}
	return 0, false
}

// text is XmlWriter.convertToXmlString: toString of scalars, JSON of maps
// and arrays, a row's fields joined by field_delimiter, bytes as UTF-8.
func (x *xmlOut) text(t *row.Type, v any) string {
	if v == nil {
		return ""
	}
	switch t.ID {
	case row.TypeNull:
		return ""
	case row.TypeDecimal:
		return row.Text(t, v)
	case row.TypeBytes:
		return string(v.([]byte))
	case row.TypeArray, row.TypeMap:
		return string(appendJSONBoxed(nil, t, v))
	case row.TypeRow:
		fields := v.([]any)
		parts := make([]string, len(fields))
		for k, f := range fields {
			parts[k] = x.text(t.Fields[k].Type, f)
		}
		return strings.Join(parts, x.cfg.nestedDelim)
	}
	return row.Text(t, v)
}

// appendXMLEscaped escapes text for an element's content or (attr) an
// attribute value in double quotes, as dom4j's XMLWriter.
func appendXMLEscaped(b []byte, s string, attr bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			if attr {
				b = append(b, "&quot;"...)
			} else {
				b = append(b, c)
			}
		case '\t', '\n', '\r':
			if attr {
				b = fmt.Appendf(b, "&#%d;", c)
			} else {
				b = append(b, c)
			}
		default:
			b = append(b, c)
		}
	}
	return b
}

// checkXMLName checks that s can be an element or attribute name.
func checkXMLName(s string) error {
	if s == "" {
		return errors.New("an xml name must not be empty")
	}
	for i, r := range s {
		ok := r == '_' || r == ':' || unicode.IsLetter(r) || (i > 0 && (r == '-' || r == '.' || unicode.IsDigit(r)))
		if !ok {
			return fmt.Errorf("%q is not an xml name", s)
		}
	}
	return nil
}

// charsetName is the name the xml declaration gives the sink's encoding.
func (sc *sinkConfig) charsetName() string {
	switch {
	case sc.latin1:
		return "ISO-8859-1"
	case sc.charset != nil:
		if n, err := ianaindex.IANA.Name(sc.charset); err == nil {
			return n
		}
	}
	return "UTF-8"
}
