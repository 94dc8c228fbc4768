// Package natsauth turns the engine's NATS security settings into
// nats.go connection options (DESIGN §11): TLS with a CA and a client
// certificate, and one of user/password, token, NKey seed or a .creds
// file. Every NATS connection a node or the CLI makes — channels between
// nodes, checkpoints in JetStream, loads — takes them.
package natsauth

import (
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"
)

// Settings are the NATS credentials and TLS files (engine settings
// nats.user, nats.password, nats.token, nats.nkey-seed, nats.creds,
// nats.tls.ca, nats.tls.cert, nats.tls.key).
type Settings struct {
	User, Password string
	Token          string
	NKeySeedFile   string // a file holding an NKey seed (SU...)
	CredsFile      string // a .creds file (a user JWT and its NKey seed)
	CAFile         string // the CA that signed the server's certificate
	CertFile       string // the client certificate, with KeyFile
	KeyFile        string
}

// Options are the connection options for s; a file that cannot be read or
// a contradiction (two ways to authenticate, a certificate without its key)
// is an error naming the setting.
func (s Settings) Options() ([]nats.Option, error) {
	var opts []nats.Option
	ways := 0
	if s.User != "" || s.Password != "" {
		if s.User == "" || s.Password == "" {
			return nil, errors.New("nats.user and nats.password go together")
		}
		ways++
		opts = append(opts, nats.UserInfo(s.User, s.Password))
	}
	if s.Token != "" {
		ways++
		opts = append(opts, nats.Token(s.Token))
	}
	if s.NKeySeedFile != "" {
		ways++
		o, err := nats.NkeyOptionFromSeed(s.NKeySeedFile)
		if err != nil {
			return nil, fmt.Errorf("nats.nkey-seed %s: %w", s.NKeySeedFile, err)
		}
		opts = append(opts, o)
	}
	if s.CredsFile != "" {
		ways++
		if err := readable(s.CredsFile); err != nil {
			return nil, fmt.Errorf("nats.creds: %w", err)
		}
		opts = append(opts, nats.UserCredentials(s.CredsFile))
	}
	if ways > 1 {
		return nil, errors.New("give one of nats.user/nats.password, nats.token, nats.nkey-seed and nats.creds")
	}
	if s.CAFile != "" {
		if err := readable(s.CAFile); err != nil {
			return nil, fmt.Errorf("nats.tls.ca: %w", err)
		}
		opts = append(opts, nats.RootCAs(s.CAFile))
	}
	if s.CertFile != "" || s.KeyFile != "" {
		if s.CertFile == "" || s.KeyFile == "" {
			return nil, errors.New("nats.tls.cert and nats.tls.key go together")
		}
		for _, f := range []string{s.CertFile, s.KeyFile} {
			if err := readable(f); err != nil {
				return nil, fmt.Errorf("nats.tls.cert/key: %w", err)
			}
		}
		opts = append(opts, nats.ClientCert(s.CertFile, s.KeyFile))
	}
	return opts, nil
}

func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	return f.Close()
}
