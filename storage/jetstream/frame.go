package jetstream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/stactor/stactor/storage"
)

// Completed-checkpoint metadata, job specs and pipeline registers are
// stored as frames, the same as localfile's files:
//
//	magic    8 bytes  "stactor" and a format version byte (1)
//	length   8 bytes  big-endian payload length
//	crc      4 bytes  big-endian CRC-32C (Castagnoli) of the payload
//	payload  length bytes
//
// The object store's SHA-256 digest already covers what it stores; the frame
// also catches an object rewritten whole with bad bytes (a digest computed
// over damage), a KV value (which has no digest), and data that is not ours.
const (
	magic     = "stactor\x01"
	headerLen = len(magic) + 8 + 4
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// frame returns header+payload.
func frame(payload []byte) []byte {
	b := make([]byte, headerLen, headerLen+len(payload))
	copy(b, magic)
	binary.BigEndian.PutUint64(b[len(magic):], uint64(len(payload)))
	binary.BigEndian.PutUint32(b[len(magic)+8:], crc32.Checksum(payload, castagnoli))
	return append(b, payload...)
}

// corruptError says why stored data does not read back; it wraps
// storage.ErrCorrupt and its reason goes into Latest's warnings.
type corruptError struct{ reason string }

func (e *corruptError) Error() string { return "corrupt (" + e.reason + ")" }
func (e *corruptError) Unwrap() error { return storage.ErrCorrupt }

func corrupt(format string, args ...any) error {
	return &corruptError{reason: fmt.Sprintf(format, args...)}
}

func corruptReason(err error) (string, bool) {
	var ce *corruptError
	if errors.As(err, &ce) {
		return ce.reason, true
	}
	return "", false
}

// unframe returns the payload of a whole frame, which aliases b.
func unframe(b []byte) ([]byte, error) {
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
