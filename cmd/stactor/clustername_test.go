package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cluster name that cannot name NATS subjects and JetStream buckets is
// refused before the command does anything, from --cluster or from the
// engine config, naming the value.
func TestClusterNameIsChecked(t *testing.T) {
	for _, name := range []string{"stactor", "prod-eu_1", "A9"} {
		if err := validClusterName(name); err != nil {
			t.Errorf("%q refused: %v", name, err)
		}
	}
	dir := t.TempDir()
	engine := filepath.Join(dir, "stactor.yaml")
	if err := os.WriteFile(engine, []byte("cluster: \"eu.prod\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--cluster", "", "job.conf"}, `cluster name ""`},
		{[]string{"run", "--cluster", "a.b", "job.conf"}, `cluster name "a.b"`},
		{[]string{"tap", "1", "--cluster", "a*"}, `cluster name "a*"`},
		{[]string{"top", "--once", "--cluster", "a b"}, `cluster name "a b"`},
		{[]string{"list", "--cluster", "a>"}, `cluster name "a>"`},
		{[]string{"run", "--engine-config", engine, "job.conf"}, `cluster name "eu.prod"`},
	} {
		root := newRootCmd()
		root.SetArgs(c.args)
		err := root.Execute()
		var ee *exitError
		if !errors.As(err, &ee) || ee.code != 2 || ee.err == nil || !strings.Contains(ee.err.Error(), c.want) {
			t.Errorf("stactor %q: %v, want exit 2 naming %s", c.args, err, c.want)
		}
	}
}
