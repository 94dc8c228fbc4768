// Package lzop reads and writes lzop files (.lzo), the container
// SeaTunnel's LocalFile uses for compress_codec lzo (aircompressor's
// LzopCodec), with LZO1X blocks. It is written from the published format
// descriptions (the LZO1X bitstream as documented in the Linux kernel's
// lzo.rst, the lzop header as lzop writes it), in pure Go: the Go ports
// of LZO that exist are GPL or wrap the C library.
//
// The compressor is a greedy LZ77 over a hash of 4-byte sequences that
// emits only the literal-run and the M3/M4 match instructions; any
// LZO1X decoder reads its output. The decompressor reads every
// instruction of the format and checks every bound, so a corrupt block is
// an error, never a panic.
package lzop

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrCorrupt reports an LZO1X block that does not decode.
var ErrCorrupt = errors.New("lzo: corrupt compressed data")

// Decompress decodes one LZO1X block into dst[:0], which must have the
// capacity of the block's uncompressed size (want); the result must be
// exactly want bytes long.
func Decompress(src []byte, want int) ([]byte, error) {
	out := make([]byte, 0, want)
	ip := 0
	state := 0
	in := func(n int) bool { return ip+n <= len(src) }
	// length reads the extension of a length field whose base is base:
	// zero bytes count 255 each, then a non-zero byte.
	length := func(base int) (int, bool) {
		n := base
		for {
			if !in(1) {
				return 0, false
			}
			b := src[ip]
			ip++
			if b != 0 {
				n += int(b)
				return n, true
			}
			n += 255
			if n > want+255 {
				return 0, false
			}
		}
	}
	literals := func(n int) bool {
		if !in(n) || len(out)+n > want {
			return false
		}
		out = append(out, src[ip:ip+n]...)
		ip += n
		return true
	}
	match := func(dist, n int) bool {
		start := len(out) - dist
		if dist <= 0 || start < 0 || len(out)+n > want {
			return false
		}
		if dist >= n {
			out = append(out, out[start:start+n]...)
			return true
		}
		for i := 0; i < n; i++ { // an overlapping copy repeats bytes
			out = append(out, out[start+i])
		}
		return true
	}
	if !in(1) {
		return nil, ErrCorrupt
	}
	if src[0] > 17 {
		n := int(src[0]) - 17
		ip = 1
		if !literals(n) {
			return nil, ErrCorrupt
		}
		state = min(n, 4)
	}
	for {
		if !in(1) {
			return nil, ErrCorrupt
		}
		op := int(src[ip])
		ip++
		var dist, n, s int
		switch {
		case op < 16 && state == 0:
			// a run of 4 or more literals
			n = 3 + op
			if op == 0 {
				var ok bool
				if n, ok = length(18); !ok {
					return nil, ErrCorrupt
				}
			}
			if !literals(n) {
				return nil, ErrCorrupt
			}
			state = 4
			continue
		case op < 16:
			if !in(1) {
				return nil, ErrCorrupt
			}
			h := int(src[ip])
			ip++
			if state == 4 {
				dist, n = (h<<2)+(op>>2&3)+2049, 3
			} else {
				dist, n = (h<<2)+(op>>2&3)+1, 2
			}
			s = op & 3
		case op < 64:
			// M4 (op < 32) and M3: a length in the low bits (or an
			// extension), then an LE16 of distance and state
			mask, base := 31, 33
			if op < 32 {
				mask, base = 7, 9
			}
			n = 2 + op&mask
			ok := true
			if op&mask == 0 {
				n, ok = length(base)
			}
			if !ok || !in(2) {
				return nil, ErrCorrupt
			}
			v := int(binary.LittleEndian.Uint16(src[ip:]))
			ip += 2
			dist, s = v>>2+1, v&3
			if op < 32 {
				dist = 16384 + (op&8)<<11 + v>>2
				if dist == 16384 { // the end of the stream
					if len(out) != want {
						return nil, fmt.Errorf("%w: %d bytes, the block says %d", ErrCorrupt, len(out), want)
					}
					return out, nil
				}
			}
		default:
			if !in(1) {
				return nil, ErrCorrupt
			}
			h := int(src[ip])
			ip++
			if op < 128 {
				n = 3 + (op>>5)&1
			} else {
				n = 5 + (op>>5)&3
			}
			dist, s = (h<<3)+(op>>2&7)+1, op&3
		}
		if !match(dist, n) || !literals(s) {
			return nil, ErrCorrupt
		}
		state = s
	}
}

const (
	minMatch = 4
	maxM3    = 16384 // the farthest M3 match
	maxDist  = 49151 // the farthest M4 match
	hashBits = 14
)

// Compress encodes src as one LZO1X block, appended to dst.
func Compress(dst, src []byte) []byte {
	var table [1 << hashBits]int32 // last position+1 of each 4-byte hash
	lit := 0                       // start of the pending literals
	first := true
	emitLiterals := func(end int) {
		n := end - lit
		if n == 0 {
			return
		}
		switch {
		case first && n <= 238:
			dst = append(dst, byte(17+n))
		case n <= 3:
			// after a match: its S bits said so (see emitMatch)
		case n <= 18:
			dst = append(dst, byte(n-3))
		default:
			dst = append(dst, 0)
			dst = appendLength(dst, n-18)
		}
		dst = append(dst, src[lit:end]...)
		first = false
	}
	i := 0
	for i+minMatch <= len(src) {
		h := hash4(src[i:])
		cand := int(table[h]) - 1
		table[h] = int32(i + 1)
		if cand < 0 || i-cand > maxDist || binary.LittleEndian.Uint32(src[cand:]) != binary.LittleEndian.Uint32(src[i:]) {
			i++
			continue
		}
		// A 1..3 literal run after the first instruction rides in the
		// previous match's S bits, so it is only possible after a match;
		// at the start it takes the first-byte form.
		if n := i - lit; n > 0 && n <= 3 && !first {
			dst[len(dst)-2] |= byte(n) // the previous match's LE16 low bits
		}
		emitLiterals(i)
		n := minMatch
		for i+n < len(src) && src[cand+n] == src[i+n] {
			n++
		}
		dst = appendMatch(dst, i-cand, n)
		first = false
		for k := i + 1; k < i+n && k+minMatch <= len(src); k++ {
			table[hash4(src[k:])] = int32(k + 1)
		}
		i += n
		lit = i
	}
	if n := len(src) - lit; n > 0 && n <= 3 && !first {
		dst[len(dst)-2] |= byte(n)
	}
	emitLiterals(len(src))
	// end of stream: an M4 of distance 16384
	return append(dst, 0x11, 0, 0)
}

func hash4(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> (32 - hashBits)
}

// appendLength writes a length extension: 255 per zero byte, then the
// rest (1..255).
func appendLength(dst []byte, rem int) []byte {
	for rem > 255 {
		dst = append(dst, 0)
		rem -= 255
	}
	return append(dst, byte(rem))
}

// appendMatch writes an M3 (distance up to 16384) or M4 match of n >= 3
// bytes; its S bits (the literals after it) are 0 and set later. The
// LE16 distance field is always the last two bytes.
func appendMatch(dst []byte, dist, n int) []byte {
	var v int
	if dist <= maxM3 {
		if n <= 33 {
			dst = append(dst, byte(32|(n-2)))
		} else {
			dst = append(dst, 32)
			dst = appendLength(dst, n-33)
		}
		v = (dist - 1) << 2
	} else {
		d := dist - 16384
		hi := byte(d>>14&1) << 3
		if n <= 9 {
			dst = append(dst, 16|hi|byte(n-2))
		} else {
			dst = append(dst, 16|hi)
			dst = appendLength(dst, n-9)
		}
		v = (d & 0x3fff) << 2
	}
	return append(dst, byte(v), byte(v>>8))
}
