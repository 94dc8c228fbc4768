package fake

import (
	"bytes"
	"fmt"
	"math/big"
	"math/bits"
	"sync"
	"time"

	"github.com/shopspring/decimal"

	"github.com/stactor/stactor/row"
)

// Generation is a pure function of (table, split, position, field): the
// hash of a row is splitmix64 of the split's seed and the row's position,
// and each field mixes in its own salt. Nothing here keeps state between
// rows, so any split can be replayed from any position.

const golden = 0x9e3779b97f4a7c15

// mix is splitmix64's finalizer: a fast, well-spread 64-bit hash.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// rng is a splitmix64 stream, for values that need more than one draw.
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += golden
	return mix(r.s)
}

// below is a uniform number in [0, n) from x (Lemire's multiply-shift).
func below(x, n uint64) uint64 {
	hi, _ := bits.Mul64(x, n)
	return hi
}

// letters is random text that generated strings and bytes are cut from:
// SeaTunnel's randomAlphabetic draws from the same 52 letters. Made on the
// first FakeSource's use, not at every process's start (1 ms, 64 KiB).
var letters = sync.OnceValue(func() string { return makeLetters(1<<16, 0x5eed) })

const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

func makeLetters(n int, seed uint64) string {
	r := rng{s: seed}
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[below(r.next(), uint64(len(alphabet)))]
	}
	return string(b)
}

// generator generates one table's rows.
type generator struct {
	t     *tableConfig
	seed  uint64
	salts []uint64 // per field
	text  string   // at least twice as long as string.length and bytes.length
	bin   []byte   // text as bytes, for bytes fields
}

func newGenerator(t *tableConfig) *generator {
	g := &generator{t: t, seed: fnv64(t.schema.TableID), text: letters()}
	if need := 2 * max(t.stringLength, t.bytesLength); need > len(g.text) {
		g.text = makeLetters(need, 0x5eed)
	}
	g.bin = []byte(g.text)
	g.salts = make([]uint64, t.schema.Len())
	for j := range g.salts {
		g.salts[j] = mix(uint64(j+1) * 0xd1b54a32d192ed03)
	}
	return g
}

func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// rowHashes fills rh with the hashes of rows [pos, pos+len(rh)) of split s.
func (g *generator) rowHashes(s *split, rh []uint64) {
	base := mix(g.seed ^ mix(uint64(s.index)+1))
	p := uint64(s.pos)
	for i := range rh {
		rh[i] = mix(base + (p+uint64(i))*golden)
	}
}

// fill appends the generated rows with hashes rh to the builder's columns.
func (g *generator) fill(b *row.Builder, s *split, rh []uint64) error {
	for j, f := range g.t.schema.Fields {
		if err := g.fillColumn(b.Col(j), f.Type, g.salts[j], rh, s.year); err != nil {
			return fmt.Errorf("FakeSource table %s field %s: %w", g.t.schema.TableID, f.Name, err)
		}
	}
	for range rh {
		b.EndRow(row.Insert)
	}
	return nil
}

// fillColumn is the hot path: one loop per column with the type decided
// outside it, and no allocation for scalar types.
func (g *generator) fillColumn(c *row.Column, t *row.Type, salt uint64, rh []uint64, year int) error {
	switch t.ID {
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		ig := g.t.ints[t.ID]
		// Filled in place, a run of values at a time: the hot path of
		// benchmarks (workload 1).
		dst := c.GrowInts(len(rh))
		if n := uint64(len(ig.template)); n > 0 {
			for i, h := range rh {
				dst[i] = narrow(t.ID, ig.template[below(mix(h^salt), n)])
			}
			return nil
		}
		span := uint64(ig.max - ig.min)
		for i, h := range rh {
			dst[i] = ig.min + int64(below(mix(h^salt), span))
		}
	case row.TypeFloat, row.TypeDouble:
		fg := g.t.floats[t.ID]
		dst := c.GrowFloats(len(rh))
		if n := uint64(len(fg.template)); n > 0 {
			for i, h := range rh {
				v := fg.template[below(mix(h^salt), n)]
				if t.ID == row.TypeFloat {
					v = float64(float32(v))
				}
				dst[i] = v
			}
			return nil
		}
		if t.ID == row.TypeFloat {
			lo, span := float32(fg.min), float32(fg.max-fg.min)
			for i, h := range rh {
				dst[i] = float64(lo + span*unit32(mix(h^salt)))
			}
			return nil
		}
		span := fg.max - fg.min
		for i, h := range rh {
			dst[i] = fg.min + span*unit64(mix(h^salt))
		}
	case row.TypeString:
		dst := c.GrowStrings(len(rh))
		if n := uint64(len(g.t.stringTemplate)); n > 0 {
			for i, h := range rh {
				dst[i] = g.t.stringTemplate[below(mix(h^salt), n)]
			}
			return nil
		}
		l := g.t.stringLength
		n := uint64(len(g.text) - l + 1)
		for i, h := range rh {
			o := below(mix(h^salt), n)
			dst[i] = g.text[o : o+uint64(l)]
		}
	case row.TypeBytes:
		l := uint64(g.t.bytesLength)
		n := uint64(len(g.bin)) - l + 1
		for _, h := range rh {
			o := below(mix(h^salt), n)
			c.AppendBytes(g.bin[o : o+l : o+l])
		}
	case row.TypeBoolean:
		for _, h := range rh {
			c.AppendBool(mix(h^salt)&1 == 1)
		}
	case row.TypeNull:
		for range rh {
			c.AppendNull()
		}
	case row.TypeDate, row.TypeTime, row.TypeTimestamp, row.TypeTimestampTZ:
		for _, h := range rh {
			r := rng{s: h ^ salt}
			days, secs, err := g.dateTime(&r, year)
			if err != nil {
				return err
			}
			switch t.ID {
			case row.TypeDate:
				c.AppendInt(days)
			case row.TypeTime:
				c.AppendInt(secs * int64(time.Second))
			case row.TypeTimestampTZ:
				off := randomOffset(&r)
				c.AppendTimestampTZ(days*86400+secs-int64(off), 0, off)
			default:
				c.AppendTimestamp(days*86400+secs, 0)
			}
		}
	case row.TypeDecimal:
		for _, h := range rh {
			r := rng{s: h ^ salt}
			c.AppendDecimal(randomDecimal(t, &r))
		}
	default: // array, map, row: boxed
		for _, h := range rh {
			r := rng{s: h ^ salt}
			v, err := g.boxed(t, &r, year)
			if err != nil {
				return err
			}
			c.AppendAny(v)
		}
	}
	return nil
}

// narrow wraps a template value to the type's width, as Java's
// Integer.byteValue and shortValue do.
func narrow(id row.TypeID, v int64) int64 {
	switch id {
	case row.TypeTinyInt:
		return int64(int8(v))
	case row.TypeSmallInt:
		return int64(int16(v))
	case row.TypeInt:
		return int64(int32(v))
	}
	return v
}

// unit64 is a double in [0, 1), as Java's Random.nextDouble.
func unit64(x uint64) float64 { return float64(x>>11) * 0x1p-53 }

// unit32 is a float in [0, 1), as Java's Random.nextFloat.
func unit32(x uint64) float32 { return float32(x>>40) * 0x1p-24 }

// dateTime generates a date-time as SeaTunnel's randomLocalDateTime: the
// year from date.year.template or the split's year, month 1-12, day 1-28,
// and a time to the second, each from its template when set. It returns
// the day (since 1970-01-01) and the second of the day; a date, a time and
// a timestamp field each take their part.
func (g *generator) dateTime(r *rng, year int) (days, secs int64, err error) {
	part := func(i int, n uint64, base int64) int64 {
		x := r.next()
		if tm := g.t.dateTemplates[i]; len(tm) > 0 {
			return tm[below(x, uint64(len(tm)))]
		}
		return base + int64(below(x, n))
	}
	y := part(0, 1, int64(year))
	mo := part(1, 12, 1)
	d := part(2, 28, 1)
	h := part(3, 24, 0)
	mi := part(4, 60, 0)
	s := part(5, 60, 0)
	if d > 28 && d > int64(daysIn(y, mo)) {
		return 0, 0, fmt.Errorf("invalid date %04d-%02d-%02d from the date templates", y, mo, d)
	}
	return row.DaysFromCivil(y, int(mo), int(d)), h*3600 + mi*60 + s, nil
}

// randomOffset is a timestamp_tz's UTC offset: a whole hour from -12:00 to
// +14:00, the offsets zones use. The wall clock is dateTime's, as for a
// timestamp, so date templates set the clock a value is written in.
func randomOffset(r *rng) int32 {
	return int32(int64(below(r.next(), 27))-12) * 3600
}

func daysIn(y, m int64) int {
	return time.Date(int(y), time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

var pow10 = func() [19]uint64 {
	var p [19]uint64
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// randomDecimal is SeaTunnel's randomBigDecimal: precision-scale random
// digits, a point, scale random digits — a uniform unscaled value below
// 10^precision at the type's scale.
func randomDecimal(t *row.Type, r *rng) decimal.Decimal {
	p, s := t.Precision, int32(t.Scale)
	if p <= 18 {
		return decimal.New(int64(below(r.next(), pow10[p])), -s)
	}
	// p digits, 18 at a time (pow10 holds 10^0..10^18).
	v := new(big.Int)
	for left := p; left > 0; {
		k := min(18, left)
		v.Mul(v, new(big.Int).SetUint64(pow10[k]))
		v.Add(v, new(big.Int).SetUint64(below(r.next(), pow10[k])))
		left -= k
	}
	return decimal.NewFromBigInt(v, -s)
}

// boxed generates one value of any type in its boxed form (row's Value
// doc), for array elements, map entries and nested rows.
func (g *generator) boxed(t *row.Type, r *rng, year int) (any, error) {
	switch t.ID {
	case row.TypeNull:
		return nil, nil
	case row.TypeTinyInt, row.TypeSmallInt, row.TypeInt, row.TypeBigInt:
		ig := g.t.ints[t.ID]
		if n := uint64(len(ig.template)); n > 0 {
			return narrow(t.ID, ig.template[below(r.next(), n)]), nil
		}
		return ig.min + int64(below(r.next(), uint64(ig.max-ig.min))), nil
	case row.TypeFloat, row.TypeDouble:
		fg := g.t.floats[t.ID]
		if n := uint64(len(fg.template)); n > 0 {
			v := fg.template[below(r.next(), n)]
			if t.ID == row.TypeFloat {
				v = float64(float32(v))
			}
			return v, nil
		}
		if t.ID == row.TypeFloat {
			return float64(float32(fg.min) + float32(fg.max-fg.min)*unit32(r.next())), nil
		}
		return fg.min + (fg.max-fg.min)*unit64(r.next()), nil
	case row.TypeString:
		if n := uint64(len(g.t.stringTemplate)); n > 0 {
			return g.t.stringTemplate[below(r.next(), n)], nil
		}
		l := uint64(g.t.stringLength)
		o := below(r.next(), uint64(len(g.text))-l+1)
		return g.text[o : o+l], nil
	case row.TypeBytes:
		l := uint64(g.t.bytesLength)
		o := below(r.next(), uint64(len(g.bin))-l+1)
		return g.bin[o : o+l : o+l], nil
	case row.TypeBoolean:
		return r.next()&1 == 1, nil
	case row.TypeDecimal:
		return randomDecimal(t, r), nil
	case row.TypeDate, row.TypeTime, row.TypeTimestamp, row.TypeTimestampTZ:
		days, secs, err := g.dateTime(r, year)
		switch t.ID {
		case row.TypeDate:
			return time.Unix(days*86400, 0).UTC(), err
		case row.TypeTime:
			return time.Duration(secs) * time.Second, err
		case row.TypeTimestampTZ:
			off := randomOffset(r)
			return row.TimestampTZTime(days*86400+secs-int64(off), 0, off), err
		}
		return time.Unix(days*86400+secs, 0).UTC(), err
	case row.TypeArray:
		out := make([]any, g.t.arraySize)
		for i := range out {
			v, err := g.boxed(t.Elem, r, year)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case row.TypeMap:
		// A Java HashMap keeps one entry per key: a repeated key replaces
		// the earlier value (in place, so the order stays that of first
		// insertion).
		m := &row.MapValue{Keys: make([]any, 0, g.t.mapSize), Values: make([]any, 0, g.t.mapSize)}
	entries:
		for i := 0; i < g.t.mapSize; i++ {
			k, err := g.boxed(t.Key, r, year)
			if err != nil {
				return nil, err
			}
			v, err := g.boxed(t.Elem, r, year)
			if err != nil {
				return nil, err
			}
			for x, old := range m.Keys {
				if sameKey(old, k) {
					m.Values[x] = v
					continue entries
				}
			}
			m.Keys = append(m.Keys, k)
			m.Values = append(m.Values, v)
		}
		return m, nil
	case row.TypeRow:
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v, err := g.boxed(f.Type, r, year)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("type %s is not supported", t)
}

func sameKey(a, b any) bool {
	switch x := a.(type) {
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case decimal.Decimal:
		y, ok := b.(decimal.Decimal)
		return ok && x.Equal(y)
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y)
	case string, int64, float64, bool, time.Duration, nil:
		return a == b
	}
	return false // arrays, maps and rows as keys: Java compares them by identity
}
