package localfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"

	"github.com/stactor/stactor/storage"
)

// Every file the store writes is a frame:
//
//	magic    8 bytes  "stactor" and a format version byte (1)
//	length   8 bytes  big-endian payload length
//	crc      4 bytes  big-endian CRC-32C (Castagnoli) of the payload
//	payload  length bytes: proto bytes, a state blob, or an 8-byte counter
//
// The length catches truncation (and trailing garbage), the CRC any flipped
// byte in the payload, the magic a file that is not ours. CRC-32C detects
// every error burst up to 32 bits, and is hardware-accelerated on amd64 and
// arm64, so checking a state blob costs little next to reading it.
const (
	magic     = "stactor\x01"
	headerLen = len(magic) + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frameHeader returns the header for payload; the file is header+payload.
func frameHeader(payload []byte) []byte {
	h := make([]byte, headerLen)
	copy(h, magic)
	binary.BigEndian.PutUint64(h[len(magic):], uint64(len(payload)))
	binary.BigEndian.PutUint32(h[len(magic)+8:], crc32.Checksum(payload, castagnoli))
	return h
}

// corruptError says why a frame does not read back; it wraps
// storage.ErrCorrupt and its reason goes into Latest's warnings.
type corruptError struct{ reason string }

func (e *corruptError) Error() string { return "corrupt (" + e.reason + ")" }
func (e *corruptError) Unwrap() error { return storage.ErrCorrupt }

func corrupt(format string, args ...any) error {
	return &corruptError{reason: fmt.Sprintf(format, args...)}
}

// decodeFrame returns the payload of a whole file, which aliases b.
func decodeFrame(b []byte) ([]byte, error) {
	if len(b) < headerLen {
		return nil, corrupt("truncated: %d bytes, shorter than the %d-byte header", len(b), headerLen)
	}
	if !bytes.Equal(b[:len(magic)], []byte(magic)) {
		return nil, corrupt("bad magic")
	}
	n := binary.BigEndian.Uint64(b[len(magic):])
	payload := b[headerLen:]
	switch {
	case n > uint64(len(payload)):
		return nil, corrupt("truncated: %d of %d payload bytes", len(payload), n)
	case n < uint64(len(payload)):
		return nil, corrupt("%d bytes after the %d-byte payload", uint64(len(payload))-n, n)
	}
	if binary.BigEndian.Uint32(b[len(magic)+8:]) != crc32.Checksum(payload, castagnoli) {
		return nil, corrupt("checksum mismatch")
	}
	return payload, nil
}
