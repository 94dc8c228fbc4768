//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package localfile

import (
	"os"
	"syscall"
)

// flock takes an exclusive advisory lock on f, waiting for another process
// that holds it. The kernel drops it when the holder exits, so a crashed
// process never leaves a pipeline locked.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

func funlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// tryFlock takes an exclusive advisory lock on f if no other process holds
// it; ok is false when one does.
func tryFlock(f *os.File) (ok bool, err error) {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch err {
		case nil:
			return true, nil
		case syscall.EWOULDBLOCK:
			return false, nil
		case syscall.EINTR:
			continue
		}
		return false, err
	}
}
