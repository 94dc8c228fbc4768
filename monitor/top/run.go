package top

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// ANSI sequences Run uses: the alternate screen and the cursor, cursor
// home, clear to the end of the line and of the screen.
const (
	enter     = "\x1b[?1049h\x1b[?25l"
	leave     = "\x1b[?25h\x1b[?1049l"
	home      = "\x1b[H"
	clearLine = "\x1b[K"
	clearRest = "\x1b[J"
)

// Run shows md until ctx ends or, on a terminal, the user presses q or
// Ctrl-C. On a terminal it takes the alternate screen and raw mode and
// gives both back on return; otherwise (a pipe, a file) it writes a plain
// frame every interval, separated by blank lines.
func Run(ctx context.Context, in, out *os.File, md *Model, source string, interval time.Duration) error {
	if !term.IsTerminal(int(out.Fd())) {
		return runPlain(ctx, out, md, source, interval)
	}
	keys := make(chan byte, 8)
	if term.IsTerminal(int(in.Fd())) {
		old, err := term.MakeRaw(int(in.Fd()))
		if err != nil {
			return err
		}
		defer term.Restore(int(in.Fd()), old) //nolint:errcheck // best effort on the way out
		// The reader ends with the process: a read of a terminal cannot
		// be interrupted portably.
		go readKeys(in, keys)
	}
	if _, err := io.WriteString(out, enter); err != nil {
		return err
	}
	defer io.WriteString(out, leave) //nolint:errcheck // best effort on the way out
	v := View{Source: source, Keys: true}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		v.Width, v.Height = 0, 0
		if w, h, err := term.GetSize(int(out.Fd())); err == nil {
			v.Width, v.Height = w, h-1
		}
		if err := drawFrame(out, md, v); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		case k := <-keys:
			switch k {
			case 'q', 'Q', 3, 4: // q, Ctrl-C, Ctrl-D
				return nil
			case 's', 'S':
				v.Subtasks = !v.Subtasks
			}
		}
	}
}

func readKeys(in io.Reader, keys chan<- byte) {
	buf := make([]byte, 16)
	for {
		n, err := in.Read(buf)
		for _, k := range buf[:n] {
			keys <- k
		}
		if err != nil {
			close(keys)
			return
		}
	}
}

// drawFrame redraws the screen in place: each line cleared to its end,
// the rest of the screen below the frame cleared.
func drawFrame(out io.Writer, md *Model, v View) error {
	var frame bytes.Buffer
	if err := Render(&frame, md.Jobs(time.Now()), time.Now(), v); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString(home)
	for _, l := range strings.Split(strings.TrimRight(frame.String(), "\n"), "\n") {
		b.WriteString(l + clearLine + "\r\n")
	}
	b.WriteString(clearRest)
	_, err := io.WriteString(out, b.String())
	return err
}

func runPlain(ctx context.Context, out io.Writer, md *Model, source string, interval time.Duration) error {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := Render(out, md.Jobs(time.Now()), time.Now(), View{Source: source, Subtasks: true}); err != nil {
				return err
			}
		}
	}
}
