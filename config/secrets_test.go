package config_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/messages"
)

func TestIsSecretKey(t *testing.T) {
	for key, want := range map[string]bool{
		"password": true, "kafka.config.sasl.jaas.config": true, "sasl.mechanism": true, "http.token": true,
		"db_password": true, "client-secret": true, "access_token": true,
		"user": false, "url": false, "passwords_are_fun": false, "row.num": false, "tokenizer": false,
	} {
		if got := config.IsSecretKey(key); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// A sealed spec holds no secret in the clear, opens back to the spec, and
// will not open with another key.
func TestSealAndOpen(t *testing.T) {
	root, err := config.ParseTree("job.conf", []byte(`
source { Jdbc { url = "jdbc:postgresql://db/x", user = "app", password = "s3cr3t-pw", properties { sasl.jaas.config = "jaas-s3cr3t" } } }
sink { Console {} }`), nil)
	if err != nil {
		t.Fatal(err)
	}
	spec := &messages.JobSpec{JobId: "j", Vars: map[string]string{"PW": "var-s3cr3t"}, Resolved: &messages.ResolvedJob{Tree: config.EncodeTree(root)}}
	key, err := config.LoadOrCreateKey(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := config.NewSealer(key)
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := s.SealSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := proto.Marshal(sealed)
	for _, secret := range []string{"s3cr3t-pw", "jaas-s3cr3t", "var-s3cr3t"} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Fatalf("%s is in the sealed spec", secret)
		}
	}
	if !bytes.Contains(raw, []byte("jdbc:postgresql://db/x")) || !bytes.Contains(raw, []byte("app")) {
		t.Fatal("sealing changed options that are not secrets")
	}
	opened, err := s.OpenSpec(sealed)
	if err != nil || !proto.Equal(opened, spec) {
		t.Fatalf("open: %v, equal %v", err, proto.Equal(opened, spec))
	}
	other, _ := config.NewSealer(bytes.Repeat([]byte{7}, 32))
	if _, err := other.OpenSpec(sealed); err == nil || !strings.Contains(err.Error(), "another key") {
		t.Fatalf("open with another key: %v", err)
	}
	if _, err := config.ParseKey("short"); err == nil {
		t.Fatal("a short key was taken")
	}
}
