package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/task"
	"github.com/stactor/stactor/cluster/consul"
	"github.com/stactor/stactor/cluster/httpapi"
	"github.com/stactor/stactor/cluster/natsauth"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/storage"
	"github.com/stactor/stactor/storage/localfile"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// settings are the engine settings: defaults, then stactor.yaml (in the
// working directory or STACTOR_HOME, or --engine-config), then STACTOR_*
// variables, then flags.
type settings struct {
	v *viper.Viper
}

func newSettings() *settings {
	v := viper.New()
	v.SetEnvPrefix("STACTOR")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_", "-", "_"))
	v.AutomaticEnv()
	home, _ := os.UserHomeDir()
	v.SetDefault("home", filepath.Join(home, ".stactor"))
	v.SetDefault("log.level", "warn")
	v.SetDefault("batch-size", 4096)
	v.SetDefault("channel.credits", 8)
	v.SetDefault("progress-interval", "60s")
	v.SetDefault("checkpoint.interval", "10s")
	v.SetDefault("checkpoint.timeout", "60s")
	v.SetDefault("checkpoint.min-pause", "0s")
	v.SetDefault("checkpoint.tolerable-failure", 3)
	v.SetDefault("checkpoint.storage.max-retained", 3)
	v.SetDefault("commit.node-gone-timeout", "20s")
	v.SetDefault("watchdog.no-progress-timeout", "10m")
	v.SetDefault("task.cancel-timeout", "10s")
	v.SetDefault("job.resolve-timeout", "5m")
	v.SetDefault("slot-allocate-strategy", "SLOT_RATIO")
	v.SetDefault("job-schedule-strategy", "REJECT")
	v.SetDefault("dynamic-slot", true)
	v.SetDefault("slot-num", 2)
	v.SetDefault("slot.cpu", 0.25)
	v.SetDefault("slot.memory", 128)
	v.SetDefault("history-job-expire-minutes", 1440)
	v.SetDefault("consul-check-ttl", "3s")
	v.SetDefault("consul-session-ttl", "10s")
	v.SetDefault("consul-lock-delay", "1s")
	v.SetDefault("tap.rows-per-second", 1000)
	v.SetDefault("metrics.interval", "2s")
	return &settings{v: v}
}

// load reads the engine config file, if any.
func (s *settings) load(file string) error {
	if file != "" {
		s.v.SetConfigFile(file)
		if err := s.v.ReadInConfig(); err != nil {
			return fmt.Errorf("reading engine config %s: %w", file, err)
		}
		return nil
	}
	// Look for stactor.yaml by its full name (viper's own search would also
	// take a file named plain "stactor", such as the binary).
	for _, dir := range []string{".", s.v.GetString("home")} {
		p := filepath.Join(dir, "stactor.yaml")
		if _, err := os.Stat(p); err == nil {
			s.v.SetConfigFile(p)
			if err := s.v.ReadInConfig(); err != nil {
				return fmt.Errorf("reading engine config %s: %w", p, err)
			}
			return nil
		}
	}
	return nil
}

func (s *settings) taskOptions() (task.Options, error) {
	o := task.DefaultOptions()
	o.BatchSize = s.v.GetInt("batch-size")
	o.CreditWindow = s.v.GetInt64("channel.credits")
	if o.BatchSize < 1 {
		return o, fmt.Errorf("engine setting batch-size must be at least 1, got %d", o.BatchSize)
	}
	if o.CreditWindow < 1 {
		return o, fmt.Errorf("engine setting channel.credits must be at least 1, got %d", o.CreditWindow)
	}
	return o, nil
}

func (s *settings) checkpointConfig() (checkpoint.Config, error) {
	c := checkpoint.DefaultConfig()
	c.Interval = s.v.GetDuration("checkpoint.interval")
	c.Timeout = s.v.GetDuration("checkpoint.timeout")
	c.MinPause = s.v.GetDuration("checkpoint.min-pause")
	c.TolerableFailures = s.v.GetInt("checkpoint.tolerable-failure")
	c.MaxRetained = s.v.GetInt("checkpoint.storage.max-retained")
	c.NodeGoneAfter = s.v.GetDuration("commit.node-gone-timeout")
	if c.NodeGoneAfter < 0 {
		return c, fmt.Errorf("engine setting commit.node-gone-timeout must not be negative, got %s", c.NodeGoneAfter)
	}
	if c.Interval <= 0 {
		return c, fmt.Errorf("engine setting checkpoint.interval must be positive, got %s", c.Interval)
	}
	if c.MaxRetained < 1 {
		return c, fmt.Errorf("engine setting checkpoint.storage.max-retained must be at least 1, got %d", c.MaxRetained)
	}
	return c, nil
}

// httpAddress is where the node serves the HTTP API: http.address (--http,
// STACTOR_HTTP_ADDRESS), or a plain string http (STACTOR_HTTP, and
// stactor.yaml files written before the http block had other keys).
func (s *settings) httpAddress() string {
	if a := s.v.GetString("http.address"); a != "" {
		return a
	}
	if a, ok := s.v.Get("http").(string); ok {
		return a
	}
	return ""
}

// consulSettings reach the Consul agent: consul.address (--consul,
// STACTOR_CONSUL_ADDRESS, or a plain string consul: STACTOR_CONSUL), its
// ACL token and TLS files.
func (s *settings) consulSettings() consul.ClientSettings {
	c := consul.ClientSettings{Token: s.v.GetString("consul.token"),
		CAFile: s.v.GetString("consul.tls.ca"), CertFile: s.v.GetString("consul.tls.cert"), KeyFile: s.v.GetString("consul.tls.key")}
	switch a, ok := s.v.Get("consul").(string); {
	case s.v.IsSet("consul.address"):
		c.Address = s.v.GetString("consul.address")
	case ok && a != "":
		c.Address = a
	default:
		c.Address = s.v.GetString("consul.address") // the flag's default
	}
	return c
}

// remoteTLS secures protoactor remote between nodes and from the CLI.
func (s *settings) remoteTLS() engine.RemoteTLS {
	return engine.RemoteTLS{CA: s.v.GetString("remote.tls.ca"), Cert: s.v.GetString("remote.tls.cert"), Key: s.v.GetString("remote.tls.key")}
}

// natsURL is the NATS server: nats.url (--nats, STACTOR_NATS_URL), or a
// plain string nats (STACTOR_NATS, older stactor.yaml files).
func (s *settings) natsURL() string {
	if s.v.IsSet("nats.url") {
		return s.v.GetString("nats.url")
	}
	if u, ok := s.v.Get("nats").(string); ok && u != "" {
		return u
	}
	if u := s.v.GetString("nats.url"); u != "" {
		return u // the flag's default
	}
	return "nats://127.0.0.1:4222"
}

// natsAuth are the NATS credentials and TLS files (DESIGN §11).
func (s *settings) natsAuth() natsauth.Settings {
	return natsauth.Settings{User: s.v.GetString("nats.user"), Password: s.v.GetString("nats.password"), Token: s.v.GetString("nats.token"),
		NKeySeedFile: s.v.GetString("nats.nkey-seed"), CredsFile: s.v.GetString("nats.creds"),
		CAFile: s.v.GetString("nats.tls.ca"), CertFile: s.v.GetString("nats.tls.cert"), KeyFile: s.v.GetString("nats.tls.key")}
}

// httpAuth are the HTTP API's credentials (DESIGN §11).
func (s *settings) httpAuth() (httpapi.Auth, error) {
	a := httpapi.Auth{Token: s.v.GetString("http.token"), ReadToken: s.v.GetString("http.read-token")}
	if s.v.GetBool("enable-basic-auth") {
		a.BasicUser, a.BasicPassword = s.v.GetString("basic-auth-username"), s.v.GetString("basic-auth-password")
		if a.BasicUser == "" || a.BasicPassword == "" {
			return a, fmt.Errorf("enable-basic-auth needs basic-auth-username and basic-auth-password")
		}
	}
	if a.Token != "" && a.Token == a.ReadToken {
		return a, fmt.Errorf("http.token and http.read-token must differ")
	}
	return a, nil
}

// sealer seals the secrets of stored jobs (DESIGN §11) with secrets.key
// (STACTOR_SECRETS_KEY) or the key in secrets.key-file. Without either, a
// local run makes and keeps a key in STACTOR_HOME/secrets.key; a node has
// none (nil).
func (s *settings) sealer(local bool) (*config.Sealer, error) {
	var key []byte
	var err error
	switch {
	case s.v.GetString("secrets.key") != "":
		key, err = config.ParseKey(s.v.GetString("secrets.key"))
	case s.v.GetString("secrets.key-file") != "":
		var data []byte
		if data, err = os.ReadFile(s.v.GetString("secrets.key-file")); err == nil {
			key, err = config.ParseKey(string(data))
		}
	case local:
		key, err = config.LoadOrCreateKey(filepath.Join(s.v.GetString("home"), "secrets.key"))
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return config.NewSealer(key)
}

// jobStore is the local checkpoint storage with the jobs' secrets sealed.
func (s *settings) jobStore() (storage.Storage, error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	sealer, err := s.sealer(true)
	if err != nil {
		return nil, err
	}
	return storage.WithSealedJobs(st, sealer), nil
}

// lockJob takes the run lock of a job in the local checkpoint storage
// (localfile.Store.LockJob).
func (s *settings) lockJob(jobID string) (func(), error) {
	st, err := s.store()
	if err != nil {
		return nil, err
	}
	return st.LockJob(jobID)
}

// store opens the local checkpoint storage under home.
func (s *settings) store() (*localfile.Store, error) {
	root := filepath.Join(s.v.GetString("home"), "checkpoints")
	st, err := localfile.New(root)
	if err != nil {
		return nil, fmt.Errorf("opening checkpoint storage %s: %w", root, err)
	}
	return st, nil
}

func (s *settings) logger() (zerolog.Logger, error) {
	lvl, err := zerolog.ParseLevel(s.v.GetString("log.level"))
	if err != nil {
		return zerolog.Nop(), fmt.Errorf("engine setting log.level: %w", err)
	}
	var w = zerolog.New(os.Stderr)
	if isTerminal(os.Stderr) {
		w = zerolog.New(zerolog.ConsoleWriter{Out: os.Stderr, TimeFormat: time.TimeOnly})
	}
	return w.Level(lvl).With().Timestamp().Logger(), nil
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func newRootCmd() *cobra.Command {
	s := newSettings()
	var engineConfig string
	root := &cobra.Command{
		Use:           "stactor",
		Short:         "stactor runs SeaTunnel-style data integration jobs with exactly-once delivery",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := s.load(engineConfig); err != nil {
				return err
			}
			// The cluster name a command goes by, as its PreRun binds the
			// flag: --cluster if given, else the engine config's, else the
			// flag's default.
			if f := cmd.Flags().Lookup("cluster"); f != nil {
				name := f.Value.String()
				if !f.Changed && s.v.IsSet("cluster") {
					name = s.v.GetString("cluster")
				}
				if err := validClusterName(name); err != nil {
					return &exitError{2, err}
				}
			}
			return nil
		},
	}
	root.PersistentFlags().StringVar(&engineConfig, "engine-config", "", "engine config file (default: stactor.yaml in . or STACTOR_HOME)")
	root.PersistentFlags().String("log-level", "warn", "log level: debug, info, warn, error")
	_ = s.v.BindPFlag("log.level", root.PersistentFlags().Lookup("log-level"))
	root.AddCommand(newRunCmd(s), newCheckpointsCmd(s), newPluginsCmd(), newVersionCmd(), newDevCmd(), newTapCmd(s), newTopCmd(s))
	root.AddCommand(clusterCommands(s)...)
	return root
}

// clusterName is what a cluster name may be made of: it is a token of
// every NATS subject stactor.NAME.… of the taps and metrics, and part of
// the JetStream buckets' names stactor_NAME_… of a cluster's checkpoints.
var clusterName = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// validClusterName says what is wrong with a cluster name (--cluster or
// the engine setting cluster), nil if nothing.
func validClusterName(name string) error {
	if !clusterName.MatchString(name) {
		return fmt.Errorf("cluster name %q: use letters, digits, '-' and '_' (it names the NATS subjects stactor.NAME.… and the JetStream buckets stactor_NAME_…)", name)
	}
	return nil
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print stactor's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "stactor %s\n", version)
		},
	}
}
