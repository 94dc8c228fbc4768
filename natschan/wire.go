package natschan

import (
	"encoding/binary"
	"fmt"
)

// A channel message is one NATS message without NATS headers: a frame
// (below), then the part of the batch's row codec encoding it carries.
// Every field the receiver needs to fence, order and join messages is at a
// fixed offset, all little-endian:
//
//	0   2  magic "sT"
//	2   1  version (1)
//	3   1  kind: 1 batch, 2 end of data, 3 barrier
//	4   4  from: the sending subtask (int32)
//	8   4  attempt: the pipeline's attempt (int32)
//	12  4  part: which part of the batch, from 0 (uint32)
//	16  4  parts: how many parts the batch has, at least 1 (uint32)
//	20  8  term: the leader's term that started the attempt (uint64)
//	28  8  seq (int64): a batch's sequence number; for end and barrier
//	       the last batch sent before it
//	36  8  barrier (int64): a batch's last passed barrier, or a barrier's id
//	44  1  length of the barrier's type
//	45     the type's bytes, then the payload
//
// Why not NATS headers, which the first version used: a header map is
// built and serialised for every publish and parsed into a new map of
// slices for every message received, and the server handles a message with
// headers on a slower path. Five headers make a raw NATS publish/subscribe
// of the same 94 KB payloads 11–22 % slower and allocate 19 times per
// message instead of 7 (BenchmarkRawNATSHeaders; benchmarks/RESULTS.md,
// "The channel without NATS headers"); a fixed frame costs 45 bytes and a
// few loads.
const (
	frameMagic0, frameMagic1 = 's', 'T'
	frameVersion             = 1
	frameSize                = 45
)

// Values of frame.kind.
const (
	kindBatch byte = 1 + iota
	kindEnd
	kindBarrier
)

// frame is a channel message's header (see above).
type frame struct {
	kind        byte
	from        int32
	attempt     int32
	part, parts uint32
	term        uint64
	seq         int64
	barrier     int64
	typ         string // barriers only
}

func kindName(k byte) string {
	switch k {
	case kindBatch:
		return "batch"
	case kindEnd:
		return "end of data"
	case kindBarrier:
		return "barrier"
	}
	return fmt.Sprintf("kind %d", k)
}

// putFrame writes f without its type into dst[:frameSize].
func putFrame(dst []byte, f *frame) {
	_ = dst[frameSize-1]
	dst[0], dst[1], dst[2], dst[3] = frameMagic0, frameMagic1, frameVersion, f.kind
	binary.LittleEndian.PutUint32(dst[4:], uint32(f.from))
	binary.LittleEndian.PutUint32(dst[8:], uint32(f.attempt))
	binary.LittleEndian.PutUint32(dst[12:], f.part)
	binary.LittleEndian.PutUint32(dst[16:], f.parts)
	binary.LittleEndian.PutUint64(dst[20:], f.term)
	binary.LittleEndian.PutUint64(dst[28:], uint64(f.seq))
	binary.LittleEndian.PutUint64(dst[36:], uint64(f.barrier))
	dst[44] = byte(len(f.typ))
}

// appendFrame appends f with its type.
func appendFrame(dst []byte, f *frame) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, frameSize)...)
	putFrame(dst[n:], f)
	return append(dst, f.typ...)
}

// frameVersionOf is the wire version of a message that starts with the
// frame's magic; ok is false for anything else on a channel subject,
// which is not ours to judge.
func frameVersionOf(msg []byte) (version byte, ok bool) {
	if len(msg) < 3 || msg[0] != frameMagic0 || msg[1] != frameMagic1 {
		return 0, false
	}
	return msg[2], true
}

// readFrame reads the frame of a message of this version at least
// frameSize long and returns the payload after it (aliasing msg). Only the
// type's length can be wrong here, and f's fixed fields are read even
// then; the fields' values are the demux's to check.
func readFrame(msg []byte) (f frame, payload []byte, err error) {
	_ = msg[frameSize-1]
	f = frame{
		kind:    msg[3],
		from:    int32(binary.LittleEndian.Uint32(msg[4:])),
		attempt: int32(binary.LittleEndian.Uint32(msg[8:])),
		part:    binary.LittleEndian.Uint32(msg[12:]),
		parts:   binary.LittleEndian.Uint32(msg[16:]),
		term:    binary.LittleEndian.Uint64(msg[20:]),
		seq:     int64(binary.LittleEndian.Uint64(msg[28:])),
		barrier: int64(binary.LittleEndian.Uint64(msg[36:])),
	}
	end := frameSize + int(msg[44])
	if end > len(msg) {
		return f, nil, fmt.Errorf("a barrier type of %d bytes in a message of %d", msg[44], len(msg))
	}
	if end > frameSize {
		f.typ = string(msg[frameSize:end])
	}
	return f, msg[end:], nil
}

// maxTypeLen bounds a barrier's type (its length is one byte of the frame).
const maxTypeLen = 128

// minPart is the least payload a part may carry; a server whose max_payload
// leaves less is misconfigured for data.
const minPart = 4 << 10

// maxParts bounds the parts of one batch a receiver accepts (1 TiB at the
// default max_payload), so that a corrupt frame cannot claim more.
const maxParts = 1 << 20

// validType checks a barrier type: printable ASCII, so that it reads
// plainly in logs and errors, and short.
func validType(typ string) error {
	if len(typ) > maxTypeLen {
		return fmt.Errorf("barrier type of %d bytes (at most %d)", len(typ), maxTypeLen)
	}
	for i := 0; i < len(typ); i++ {
		if c := typ[i]; c < 0x20 || c > 0x7e {
			return fmt.Errorf("barrier type %q: byte %#x", typ, c)
		}
	}
	return nil
}
