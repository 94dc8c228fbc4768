// Command stactor runs SeaTunnel-style data integration jobs: `stactor run
// job.conf` runs one in this process, on the embedded engine (DESIGN §1).
package main

import (
	"errors"
	"fmt"
	"os"

	_ "github.com/stactor/stactor/connectors/all"
)

// exitError carries a process exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func main() {
	root := newRootCmd()
	if err := root.Execute(); err != nil {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
			err = ee.err
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "Error: "+err.Error())
		}
		os.Exit(code)
	}
}
