package connectors

import (
	"encoding/binary"
	"errors"
)

// Enumerator state as the built-in sources keep it: a version byte (1),
// whether the splits were discovered already, then each unassigned split's
// bytes, length-prefixed. Assigned splits are in their readers' state.

const enumStateVersion = 1

// EncodeEnumeratorState is an enumerator's snapshot: discovered, and the
// encoded splits it has not assigned yet.
func EncodeEnumeratorState(discovered bool, splits [][]byte) []byte {
	b := []byte{enumStateVersion, 0}
	if discovered {
		b[1] = 1
	}
	for _, d := range splits {
		b = binary.AppendUvarint(b, uint64(len(d)))
		b = append(b, d...)
	}
	return b
}

// DecodeEnumeratorState reads what EncodeEnumeratorState wrote; the splits
// alias state.
func DecodeEnumeratorState(state []byte) (discovered bool, splits [][]byte, err error) {
	if len(state) < 2 || state[0] != enumStateVersion {
		return false, nil, errors.New("unknown version")
	}
	discovered = state[1] == 1
	b := state[2:]
	for len(b) > 0 {
		n, m := binary.Uvarint(b)
		if m <= 0 || uint64(len(b)-m) < n {
			return false, nil, errors.New("truncated")
		}
		splits = append(splits, b[m:m+int(n)])
		b = b[m+int(n):]
	}
	return discovered, splits, nil
}
