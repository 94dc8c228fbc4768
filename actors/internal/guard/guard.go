// Package guard runs connector code so that a panic in it becomes an error
// of the call (DESIGN §3: a panic in connector code fails over or fails
// that job's pipeline with the cause; it never takes down the actor that
// called it, another job or the node).
package guard

import (
	"fmt"
	"runtime/debug"
)

// Call runs fn and returns its error, or a panic in it as an error with
// the stack.
func Call(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return fn()
}
