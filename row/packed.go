package row

// Packed string columns (issue 17). A string column holds its values in
// one of two forms:
//
//   - a vector, Strs: one Go string per value. Builders, readers and
//     operators produce this form; it is what an operator computing new
//     strings writes.
//   - packed, Text and Bounds: every value's bytes one after another in
//     Text, value i being Text[Bounds[i]:Bounds[i+1]] (n+1 bounds for n
//     values, as Arrow lays out a string array). A batch decoded by the row
//     codec (a cross-node channel, recorded channel state) has its string
//     columns packed.
//
// Why two forms: a []string is a pointer per value, and a decoder that
// fills one stores 4,096 pointers per batch, each paying the collector's
// write barrier while a collection is marking, and releasing the column
// clears them again, paying it once more. On a cross-node channel, whose
// receiver allocates each message's payload and so collects often, that
// was a fifth of the channel's CPU. A packed column decodes with no
// pointer per value (its bounds are integers; Text aliases the received
// bytes) and encodes with one copy, which is what a channel needs.
//
// Readers that take one value use Str(i), which reads either form; code
// that wants a []string calls Strings (a packed column's costs an
// allocation) or works on UnpackedRecycled. Appending to a packed column turns it
// into a vector first. Exactly one form is in use: Bounds is nil for a
// vector column, Strs is nil for a packed one.

// Packed tells whether c is a packed string column.
func (c *Column) Packed() bool { return c.Bounds != nil }

// Str is value i of a string column, either form ("" when null).
func (c *Column) Str(i int) string {
	if c.Bounds != nil {
		return c.Text[c.Bounds[i]:c.Bounds[i+1]]
	}
	return c.Strs[i]
}

// Strings is a string column's values as a vector: Strs itself, or for a
// packed column a new slice of substrings of Text.
func (c *Column) Strings() []string {
	if c.Bounds == nil {
		return c.Strs
	}
	out := make([]string, len(c.Bounds)-1)
	for i := range out {
		out[i] = c.Text[c.Bounds[i]:c.Bounds[i+1]]
	}
	return out
}

// UnpackedRecycled is Unpacked into a column from the pool (for the
// caller to own, as TakeRecycled), or c itself unless c is packed.
func (c *Column) UnpackedRecycled() *Column {
	if c.Bounds == nil {
		return c
	}
	n := len(c.Bounds) - 1
	u := NewRecycledColumn(c.Type, n)
	if c.Nulls != nil {
		u.Nulls = append(u.Nulls[:0], c.Nulls...)
	}
	u.Strs = sized(u.Strs, n)
	for i := range u.Strs {
		u.Strs[i] = c.Text[c.Bounds[i]:c.Bounds[i+1]]
	}
	return u
}

// takeStrings is the values at idx as a vector, in dst's room: Take's and
// TakeRecycled's string case, either form.
func (c *Column) takeStrings(dst []string, idx []int) []string {
	if c.Bounds == nil {
		return takeInto(dst, c.Strs, idx)
	}
	dst = sized(dst, len(idx))
	for k, i := range idx {
		dst[k] = c.Text[c.Bounds[i]:c.Bounds[i+1]]
	}
	return dst
}

// unpack turns a packed c into a vector column in place, before an append.
func (c *Column) unpack() {
	if c.Bounds != nil {
		c.Strs = c.Strings()
		c.Text, c.Bounds = "", nil
	}
}

// textBytes is the byte length of a packed column's values [0, n).
func (c *Column) textBytes(n int) int { return int(c.Bounds[n] - c.Bounds[0]) }
