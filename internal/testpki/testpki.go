// Package testpki is devpki for tests: a throwaway CA and certificates in
// a test's folder (valid for an hour, naming 127.0.0.1 and localhost), for
// the tests of TLS on the HTTP API, NATS and protoactor remote.
package testpki

import (
	"testing"
	"time"

	"github.com/stactor/stactor/internal/devpki"
)

// CA is a certificate authority whose files are in a test's folder.
type CA struct {
	File string // the CA certificate, PEM
	ca   *devpki.CA
}

// New makes a CA named name in dir.
func New(t testing.TB, dir, name string) *CA {
	t.Helper()
	ca, err := devpki.New(dir, name, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &CA{File: ca.File, ca: ca}
}

// Issue makes a certificate for name, for servers and clients both.
func (c *CA) Issue(t testing.TB, name string) (certFile, keyFile string) {
	t.Helper()
	certFile, keyFile, err := c.ca.Issue(name)
	if err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}
