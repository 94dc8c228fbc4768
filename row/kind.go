package row

import "fmt"

// Kind is a row's change kind, as SeaTunnel's RowKind.
type Kind int8

// The row kinds, in SeaTunnel's order.
const (
	Insert Kind = iota
	UpdateBefore
	UpdateAfter
	Delete
)

var kindNames = [...]string{"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"}
var kindShort = [...]string{"+I", "-U", "+U", "-D"}

// String is the kind's name as SeaTunnel prints it (INSERT, UPDATE_BEFORE, ...).
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int8(k))
}

// Short is SeaTunnel's short form: +I, -U, +U, -D.
func (k Kind) Short() string {
	if k >= 0 && int(k) < len(kindShort) {
		return kindShort[k]
	}
	return "?"
}

// ParseKind reads a kind by its name (INSERT, UPDATE_BEFORE, ...) or its
// short form (+I, -U, +U, -D), case-insensitively for names.
func ParseKind(s string) (Kind, error) {
	for i, n := range kindNames {
		if equalFold(s, n) || s == kindShort[i] {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("unknown row kind %q (want INSERT, UPDATE_BEFORE, UPDATE_AFTER or DELETE)", s)
}

func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
