package main

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/monitor/metrics"
	"github.com/stactor/stactor/monitor/natsserver"
	"github.com/stactor/stactor/monitor/tap"
)

// What `stactor run` gives `stactor tap` and `stactor top` (DESIGN §9):
// its subtasks' taps and its JobMaster's metrics snapshots, on the NATS
// server of --nats URL, or on one the run serves itself on loopback
// (monitor/natsserver). The run writes that server's URL to
// STACTOR_HOME/run/JOB.nats while it runs, where tap and top look first.

// tapOptions are the tap.* engine settings.
func (s *settings) tapOptions() (tap.Options, error) {
	o := tap.DefaultOptions()
	n := s.v.GetInt("tap.rows-per-second")
	if n < 1 {
		return o, fmt.Errorf("engine setting tap.rows-per-second must be at least 1, got %d", n)
	}
	if d := s.v.GetDuration("metrics.interval"); d <= 0 {
		return o, fmt.Errorf("engine setting metrics.interval must be positive, got %s", d)
	}
	o.RowsPerSecond = n
	return o, nil
}

// prefix is the subject prefix of the cluster (or local run) named by the
// cluster setting.
func (s *settings) prefix() string { return "stactor." + s.v.GetString("cluster") }

// localMonitor is a local run's NATS connection for taps and metrics,
// and the embedded server when it serves one.
type localMonitor struct {
	srv  *natsserver.Server
	nc   *nats.Conn
	url  string
	file string // STACTOR_HOME/run/JOB.nats
}

// startLocalMonitor connects to url (empty: serve an embedded server on
// loopback; "none": no taps or metrics, a nil monitor).
func startLocalMonitor(s *settings, url, jobID string) (*localMonitor, error) {
	if url == "none" {
		return nil, nil
	}
	m := &localMonitor{url: url}
	opts := []nats.Option{nats.Name("stactor-run-" + jobID), nats.MaxReconnects(-1)}
	var token string
	if url == "" {
		b := make([]byte, 24)
		_, _ = rand.Read(b) // crypto/rand.Read does not fail (Go 1.24)
		token = base64.RawURLEncoding.EncodeToString(b)
		srv, err := natsserver.Listen("127.0.0.1", natsserver.WithToken(token))
		if err != nil {
			return nil, err
		}
		m.srv, m.url = srv, srv.URL()
		opts = append(opts, nats.InProcessServer(srv), nats.Token(token))
	} else {
		auth, err := s.natsAuth().Options()
		if err != nil {
			return nil, &exitError{2, err}
		}
		opts = append(opts, auth...)
	}
	nc, err := nats.Connect(m.url, opts...)
	if err != nil {
		m.close()
		return nil, &exitError{2, fmt.Errorf("--nats %s: connecting for taps and metrics: %w", m.url, err)}
	}
	m.nc = nc
	dir := filepath.Join(s.v.GetString("home"), "run")
	if err := os.MkdirAll(dir, 0o755); err == nil {
		m.file = filepath.Join(dir, jobID+".nats")
		// Readable by this user only: it holds the token of a server that
		// carries rows. A file a killed run of the same job left behind is
		// replaced, not rewritten: WriteFile would keep its mode.
		_ = os.Remove(m.file)
		if err := os.WriteFile(m.file, []byte(m.url+"\n"+s.prefix()+"\n"+token+"\n"), 0o600); err != nil {
			m.file = ""
		}
	}
	return m, nil
}

// wire gives the engine's subtasks taps and its JobMasters a publisher
// of metrics snapshots.
func (m *localMonitor) wire(cfg *engine.Config, s *settings, opts tap.Options, log zerolog.Logger) {
	if m == nil {
		return
	}
	cfg.Task.Taps = tap.NewHub(m.nc, s.prefix(), opts, log)
	cfg.Metrics = metrics.NewPublisher(m.nc, s.prefix(), log)
	cfg.MetricsInterval = s.v.GetDuration("metrics.interval")
}

func (m *localMonitor) close() {
	if m == nil {
		return
	}
	if m.file != "" {
		_ = os.Remove(m.file)
	}
	if m.nc != nil {
		if m.nc.IsConnected() {
			_ = m.nc.FlushTimeout(time.Second) // the final snapshot
		}
		m.nc.Close()
	}
	if m.srv != nil {
		m.srv.Close()
	}
}

// monitorFlags are the flags of tap and top.
func monitorFlags(cmd *cobra.Command) {
	cmd.Flags().String("nats", "", "NATS URL of the cluster or local run (default: a local run's server for the job, else nats.url, else nats://127.0.0.1:4222)")
	cmd.Flags().String("cluster", "stactor", "cluster name (the subject prefix is stactor.NAME; a local run uses its --cluster, stactor by default)")
}

// monitorConn connects tap or top: to --nats, or to the server of a local
// run of job (any local run's when job is empty and only one runs), or to
// nats.url. It returns the connection, its URL and the subject prefix: a
// local run's own unless --cluster is given.
func monitorConn(cmd *cobra.Command, s *settings, job string) (*nats.Conn, string, string, error) {
	url, _ := cmd.Flags().GetString("nats")
	prefix := s.prefix()
	var token string
	if url == "" {
		var runPrefix string
		url, runPrefix, token = localRun(s, job)
		if runPrefix != "" && !cmd.Flags().Changed("cluster") {
			prefix = runPrefix
		}
	}
	if url == "" {
		url = s.natsURL()
	}
	opts, err := s.natsAuth().Options()
	if err != nil {
		return nil, "", "", &exitError{2, err}
	}
	if token != "" {
		opts = []nats.Option{nats.Token(token)} // the local run's server's
	}
	nc, err := nats.Connect(url, append(opts, nats.Name("stactor-"+cmd.Name()), nats.MaxReconnects(-1))...)
	if err != nil {
		return nil, "", "", fmt.Errorf("connecting to NATS at %s: %w (give the cluster's or the local run's server with --nats)", url, err)
	}
	return nc, url, prefix, nil
}

// localRun is the NATS URL, subject prefix and token a local run of job
// wrote (a run given --nats writes no token), or, for job "", the only
// local run's; empty when there is none.
func localRun(s *settings, job string) (url, prefix, token string) {
	dir := filepath.Join(s.v.GetString("home"), "run")
	file := filepath.Join(dir, job+".nats")
	if job == "" {
		files, _ := filepath.Glob(filepath.Join(dir, "*.nats"))
		if len(files) != 1 {
			return "", "", ""
		}
		file = files[0]
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", "", ""
	}
	lines := strings.Fields(string(b))
	if len(lines) == 0 {
		return "", "", ""
	}
	if len(lines) > 1 {
		prefix = lines[1]
	}
	if len(lines) > 2 {
		token = lines[2]
	}
	return lines[0], prefix, token
}
