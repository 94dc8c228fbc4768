package natsauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/stactor/stactor/cluster/natsauth"
)

// pki writes a throwaway CA, and a server and a client certificate it
// signed, into dir.
func pki(t *testing.T, dir string) (ca, serverCert, serverKey, clientCert, clientKey string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name}, NotBefore: time.Now().Add(-time.Hour),
			NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}}
		der, err := x509.CreateCertificate(rand.Reader, tpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(key)
		return write(name+".pem", "CERTIFICATE", der), write(name+".key", "EC PRIVATE KEY", kb)
	}
	ca = write("ca.pem", "CERTIFICATE", caDER)
	serverCert, serverKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	clientCert, clientKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return
}

// A NATS server that wants TLS with a client certificate and a password:
// the settings connect; without the password, or without the client
// certificate, the connection is refused.
func TestTLSAndPassword(t *testing.T) {
	dir := t.TempDir()
	ca, sc, sk, cc, ck := pki(t, dir)
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
