package row

// Float columns on little-endian machines: the encoding's 8-byte
// little-endian IEEE bits are the vector's own memory, so a column is one
// copy each way instead of a conversion per value.

import (
	"encoding/binary"
	"unsafe"
)

// littleEndian tells whether float64 vectors are laid out as the encoding.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// floatBytes is v's memory as bytes (v must not be empty).
func floatBytes(v []float64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), 8*len(v))
}
