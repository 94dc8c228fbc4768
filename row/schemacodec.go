package row

import "encoding/binary"

// EncodeSchema is a schema's catalog encoding: what batches carry (table
// id, primary key, each field's name, nullability, comment and type)
// followed by the constraint keys, which batches leave out. A resolved
// plan ships its catalog tables this way (DESIGN §2).
func EncodeSchema(s *Schema) []byte {
	dst := appendSchema(nil, s)
	dst = binary.AppendUvarint(dst, uint64(len(s.ConstraintKeys)))
	for _, k := range s.ConstraintKeys {
		dst = appendStr(dst, k.Name)
		dst = appendStr(dst, k.Type)
		dst = binary.AppendUvarint(dst, uint64(len(k.Columns)))
		for _, c := range k.Columns {
			dst = appendStr(dst, c.Name)
			dst = appendStr(dst, c.Sort)
		}
	}
	return dst
}

// DecodeSchema reads what EncodeSchema wrote. Errors wrap ErrTruncated or
// ErrCorrupt; it never panics on bad input.
func DecodeSchema(src []byte) (*Schema, error) {
	r := &reader[[]byte]{b: src}
	s, err := r.schema()
	if err != nil {
		return nil, err
	}
	nk, err := r.count(3)
	if err != nil {
		return nil, err
	}
	for range nk {
		var k ConstraintKey
		name, err := r.str()
		if err != nil {
			return nil, err
		}
		typ, err := r.str()
		if err != nil {
			return nil, err
		}
		nc, err := r.count(2)
		if err != nil {
			return nil, err
		}
		k.Name, k.Type = string(name), string(typ)
		for range nc {
			cn, err := r.str()
			if err != nil {
				return nil, err
			}
			cs, err := r.str()
			if err != nil {
				return nil, err
			}
			k.Columns = append(k.Columns, ConstraintColumn{Name: string(cn), Sort: string(cs)})
		}
		s.ConstraintKeys = append(s.ConstraintKeys, k)
	}
	if r.p != len(src) {
		return nil, corrupt("schema: %d bytes left over", len(src)-r.p)
	}
	return s, nil
}
