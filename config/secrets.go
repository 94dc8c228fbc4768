package config

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/stactor/stactor/config/hocon"
	"github.com/stactor/stactor/messages"
)

// Secrets in a job (DESIGN §11). An option is a secret when a segment of
// its key path names one: password (also passwd, secret, token,
// credentials, and keys ending in _password, -password, .password), or it
// is under sasl (Kafka's sasl.jaas.config). Secrets never appear in what
// stactor prints about a job, and a Sealer encrypts them (AES-256-GCM) in
// the job as it is stored — the job registry and checkpoint storage — and
// decrypts them when it is read back. Secrets travel between nodes only in
// memory, over the links DESIGN §11 lets be TLS.

// IsSecretKey tells whether an option at this key path holds a secret.
func IsSecretKey(path string) bool {
	for _, seg := range strings.FieldsFunc(path, func(r rune) bool { return r == '.' }) {
		s := strings.ToLower(seg)
		switch {
		case s == "password", s == "passwd", s == "secret", s == "token", s == "credentials", s == "sasl",
			strings.HasSuffix(s, "_password"), strings.HasSuffix(s, "-password"),
			strings.HasSuffix(s, "_secret"), strings.HasSuffix(s, "-secret"),
			strings.HasSuffix(s, "_token"), strings.HasSuffix(s, "-token"):
			return true
		}
	}
	return false
}

// Redacted is what is shown instead of a secret.
const Redacted = "******"

// sealedPrefix marks a sealed value; the rest is base64 of nonce and
// ciphertext.
const sealedPrefix = "ENC[stactor:v1:"

// Sealer encrypts and decrypts the secrets of stored jobs with one key.
type Sealer struct{ aead cipher.AEAD }

// NewSealer is a Sealer with a 32-byte key.
func NewSealer(key []byte) (*Sealer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("the secrets key must be 32 bytes, got %d", len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// ParseKey reads a key written as 64 hex digits or as base64 of 32 bytes
// (the secrets.key engine setting).
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if k, err := hex.DecodeString(s); err == nil && len(k) == 32 {
		return k, nil
	}
	if k, err := base64.StdEncoding.DecodeString(s); err == nil && len(k) == 32 {
		return k, nil
	}
	return nil, errors.New("secrets.key: want 32 bytes as 64 hex digits or base64 (e.g. `openssl rand -hex 32`)")
}

// LoadOrCreateKey reads the key in file, or makes one there (mode 0600) if
// there is none: what a local run uses when no key is configured.
func LoadOrCreateKey(file string) ([]byte, error) {
	if data, err := os.ReadFile(file); err == nil {
		return ParseKey(string(data))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("reading the secrets key: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return LoadOrCreateKey(file) // another process made it first
	}
	if err != nil {
		return nil, fmt.Errorf("creating the secrets key: %w", err)
	}
	_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return nil, fmt.Errorf("writing the secrets key: %w", werr)
	}
	return key, nil
}

// SealSpec is spec with every secret in its trees encrypted (a copy).
func (s *Sealer) SealSpec(spec *messages.JobSpec) (*messages.JobSpec, error) {
	return s.mapSpec(spec, s.seal)
}

// OpenSpec is SealSpec's inverse; a value not sealed is left as it is (a
// job stored before it was sealed). A value sealed with another key is an
// error saying so.
func (s *Sealer) OpenSpec(spec *messages.JobSpec) (*messages.JobSpec, error) {
	return s.mapSpec(spec, s.open)
}

func (s *Sealer) mapSpec(spec *messages.JobSpec, fn func(string) (string, error)) (*messages.JobSpec, error) {
	if spec == nil {
		return nil, nil
	}
	out := proto.Clone(spec).(*messages.JobSpec)
	// The -i variables are filled into the tree already and kept only to
	// show the job; any may be a password, so all are sealed.
	for k, v := range out.Vars {
		t, err := fn(v)
		if err != nil {
			return nil, fmt.Errorf("job %s: variable %s: %w", spec.JobId, k, err)
		}
		out.Vars[k] = t
	}
	if err := mapSecrets(out.Tree, "", fn); err != nil {
		return nil, fmt.Errorf("job %s: %w", spec.JobId, err)
	}
	if out.Resolved != nil {
		if err := mapSecrets(out.Resolved.Tree, "", fn); err != nil {
			return nil, fmt.Errorf("job %s: %w", spec.JobId, err)
		}
	}
	return out, nil
}

// mapSecrets applies fn to every scalar under a secret key of h.
func mapSecrets(h *messages.Hocon, path string, fn func(string) (string, error)) error {
	if h == nil {
		return nil
	}
	if hocon.Kind(h.Kind) != hocon.Object && hocon.Kind(h.Kind) != hocon.Array {
		if path != "" && IsSecretKey(path) && h.Text != "" {
			t, err := fn(h.Text)
			if err != nil {
				return fmt.Errorf("option %s: %w", path, err)
			}
			h.Text = t
		}
		return nil
	}
	for _, f := range h.Fields {
		p := f.Key
		if path != "" {
			p = path + "." + f.Key
		}
		if err := mapSecrets(f.Value, p, fn); err != nil {
			return err
		}
	}
	for _, it := range h.Items {
		if err := mapSecrets(it, path, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *Sealer) seal(plain string) (string, error) {
	if strings.HasPrefix(plain, sealedPrefix) {
		return plain, nil
	}
	nonce := make([]byte, s.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	ct := s.aead.Seal(nonce, nonce, []byte(plain), nil)
	return sealedPrefix + base64.StdEncoding.EncodeToString(ct) + "]", nil
}

func (s *Sealer) open(v string) (string, error) {
	if !strings.HasPrefix(v, sealedPrefix) || !strings.HasSuffix(v, "]") {
		return v, nil
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSuffix(strings.TrimPrefix(v, sealedPrefix), "]"))
	n := s.aead.NonceSize()
	if err != nil || len(raw) < n {
		return "", errors.New("a sealed secret is corrupt")
	}
	plain, err := s.aead.Open(nil, raw[:n], raw[n:], nil)
	if err != nil {
		return "", errors.New("a secret was sealed with another key (check secrets.key)")
	}
	return string(plain), nil
}
