package config

import (
	"fmt"

	"github.com/stactor/stactor/config/hocon"
)

// Error is a mistake in a job file, placed at a position and naming the
// plugin and key it concerns.
type Error struct {
	Pos   hocon.Pos
	Where string // "source FakeSource", "env", "transform Sql" ...
	Key   string // the option, if the mistake is about one
	Msg   string
}

func (e *Error) Error() string {
	s := e.Pos.String() + ": "
	if e.Where != "" {
		s += e.Where + ": "
	}
	if e.Key != "" {
		s += fmt.Sprintf("option %q: ", e.Key)
	}
	return s + e.Msg
}

// Warning is something in a job file that is ignored, such as an unknown
// option.
type Warning struct {
	Pos hocon.Pos
	Msg string
}

func (w Warning) String() string { return w.Pos.String() + ": " + w.Msg }
