package cli

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A job's password — an option, and a -i variable — appears in nothing the
// run prints (at debug level), nothing it stores under STACTOR_HOME, and
// nothing `stactor checkpoints` shows; the stored job is sealed, and a
// restore opens it again.
func TestSecretsAreNeverShownOrStoredInTheClear(t *testing.T) {
	const option, variable = "s3cr3t-option-Xq7", "s3cr3t-variable-Zk9"
	dir := t.TempDir()
	job := writeJob(t, dir, `
env { checkpoint.interval = 100 }
source { FakeSource { row.num = 50, password = "`+option+`", kafka.config = { sasl.jaas.config = "${PW}" }, schema = { fields { id = bigint } } } }
sink { Console { log.print.data = false } }
`)
	r := run(t, dir, "run", "--job-id", "sec1", "--log-level", "debug", "-i", "PW="+variable, job)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	c := run(t, dir, "checkpoints", "sec1")
	for _, secret := range []string{option, variable} {
		for what, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr, "checkpoints": c.stdout + c.stderr} {
			if strings.Contains(out, secret) {
				t.Fatalf("%s shows the secret %s:\n%s", what, secret, out)
			}
		}
	}
	stored := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || p == job {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		stored++
		for _, secret := range []string{option, variable} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("%s holds the secret %s in the clear", p, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if stored == 0 {
		t.Fatal("nothing was stored: the check above checked nothing")
	}
	// The sealed job opens again: a restore runs from it.
	if r := run(t, dir, "run", "--restore", "sec1"); r.code != 0 {
		t.Fatalf("restore of the sealed job: exit %d\n%s", r.code, r.stderr)
	}
}
