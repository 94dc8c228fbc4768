package hocon

import "fmt"

// Pos is a position in a source file. Line and Col are 1-based; Col
// counts characters (runes), so a tab or a multi-byte character is one
// column.
type Pos struct {
	File      string
	Line, Col int
}

// String renders the position as "file:line:col", or "line:col" when
// File is empty.
func (p Pos) String() string {
	if p.File == "" {
		return fmt.Sprintf("%d:%d", p.Line, p.Col)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// IsValid reports whether p names a position at all.
func (p Pos) IsValid() bool { return p.Line > 0 }

// lineCol renders only "line:col", for pointing at another place in the
// same file from inside a message.
func (p Pos) lineCol() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Error is a syntax or substitution error at a position in the source.
// Every error returned by Parse is an *Error.
type Error struct {
	Pos Pos
	Msg string
}

// Error returns "file:line:col: msg".
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

func errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}
