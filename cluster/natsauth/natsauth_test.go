package natsauth_test

import (
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/cluster/natsauth"
	"github.com/stactor/stactor/internal/testpki"
)

// A NATS server that wants TLS with a client certificate and a password:
// the settings connect; without the password, or without the client
// certificate, the connection is refused.
func TestTLSAndPassword(t *testing.T) {
	pki := testpki.New(t, t.TempDir(), "nats")
	ca := pki.File
	sc, sk := pki.Issue(t, "server")
	cc, ck := pki.Issue(t, "client")
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: sc, KeyFile: sk, CaFile: ca, Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, Username: "stactor", Password: "s3cr3t",
		TLSConfig: tc, TLSVerify: true, TLS: true, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	go ns.Start()
	t.Cleanup(ns.Shutdown)
	if !ns.ReadyForConnections(5 * time.Second) {
		t.Fatal("NATS did not start")
	}
	full := natsauth.Settings{User: "stactor", Password: "s3cr3t", CAFile: ca, CertFile: cc, KeyFile: ck}
	connect := func(s natsauth.Settings) error {
		opts, err := s.Options()
		if err != nil {
			return err
		}
		nc, err := nats.Connect(ns.ClientURL(), append(opts, nats.MaxReconnects(0), nats.Timeout(2*time.Second))...)
		if err == nil {
			nc.Close()
		}
		return err
	}
	if err := connect(full); err != nil {
		t.Fatalf("with every setting: %v", err)
	}
	noPass := full
	noPass.User, noPass.Password = "", ""
	if err := connect(noPass); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
		t.Fatalf("without the password: %v", err)
	}
	noCert := full
	noCert.CertFile, noCert.KeyFile = "", ""
	if err := connect(noCert); err == nil {
		t.Fatal("without a client certificate: connected")
	}
}

// Contradictions and missing files are errors naming the setting.
func TestBadSettings(t *testing.T) {
	for _, c := range []struct {
		s    natsauth.Settings
		want string
	}{
		{natsauth.Settings{User: "u"}, "nats.password"},
		{natsauth.Settings{User: "u", Password: "p", Token: "t"}, "one of"},
		{natsauth.Settings{CAFile: "/nope/ca.pem"}, "nats.tls.ca"},
		{natsauth.Settings{CertFile: "c.pem"}, "nats.tls.key"},
		{natsauth.Settings{CredsFile: "/nope/x.creds"}, "nats.creds"},
		{natsauth.Settings{NKeySeedFile: "/nope/seed"}, "nats.nkey-seed"},
	} {
		if _, err := c.s.Options(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error naming %s", c.s, err, c.want)
		}
	}
}
