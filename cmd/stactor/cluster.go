package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/actors/checkpoint"
	"github.com/stactor/stactor/actors/resource"
	"github.com/stactor/stactor/cluster/client"
	"github.com/stactor/stactor/cluster/node"
	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/engine"
	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/plan"
	"github.com/stactor/stactor/resources"
	"github.com/stactor/stactor/state"
)

// clusterFlags are the settings every cluster command shares.
func clusterFlags(cmd *cobra.Command, s *settings) {
	cmd.Flags().String("consul", "127.0.0.1:8500", "Consul agent HTTP address")
	cmd.Flags().String("cluster", "stactor", "cluster name")
	// Every cluster command has these flags under the same keys, and a key
	// follows the last flag bound to it: bind the running command's.
	cmd.PreRun = func(cmd *cobra.Command, _ []string) {
		_ = s.v.BindPFlag("consul.address", cmd.Flags().Lookup("consul"))
		_ = s.v.BindPFlag("cluster", cmd.Flags().Lookup("cluster"))
	}
}

func dial(s *settings) (*client.Client, error) {
	return client.DialWith(s.consulSettings(), s.remoteTLS(), s.v.GetString("cluster"))
}

func parseTags(kvs string) (map[string]string, error) {
	tags := map[string]string{}
	for _, kv := range strings.Split(kvs, ",") {
		if kv = strings.TrimSpace(kv); kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--tags %q: expected k=v,k=v", kvs)
		}
		tags[k] = v
	}
	return tags, nil
}

func newNodeCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "node",
		Short: "Start a cluster node (joins through Consul)",
		Long: `Start a stactor cluster node. Masters campaign for the cluster's
leadership in Consul; the leader runs the coordinator and the resource
manager. Workers run subtasks. Rows between nodes travel over NATS, and
checkpoints go to the NATS JetStream object store (JetStream must be on).

With --http ADDR the node serves the HTTP API (SeaTunnel's REST API v2:
/overview, /running-jobs, /job-info/ID, /finished-jobs, /submit-job,
/stop-job; and /job-checkpoints/ID), Prometheus /metrics and a web page
at /. The leader answers; the other nodes redirect to it.

The API listens on loopback unless credentials are configured: bearer
tokens http.token (admin: everything) and http.read-token (read only), or
basic auth (enable-basic-auth, basic-auth-username, basic-auth-password;
admin). Without a credential a request gets 401; a read-only one gets 403
on submit and stop. http.tls.cert and http.tls.key serve HTTPS, and
http.tls.client-ca requires client certificates signed by that CA.

With --data-dir DIR and no --node-id, the node keeps its id in
DIR/node-id (generated on the first start), so a restarted node is the
same member of the cluster.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := s.logger()
			if err != nil {
				return &exitError{2, err}
			}
			opts, err := s.taskOptions()
			if err != nil {
				return &exitError{2, err}
			}
			cpc, err := s.checkpointConfig()
			if err != nil {
				return &exitError{2, err}
			}
			tags, err := parseTags(s.v.GetString("tags"))
			if err != nil {
				return &exitError{2, err}
			}
			strategy, err := resources.ParseStrategy(s.v.GetString("slot-allocate-strategy"))
			if err != nil {
				return &exitError{2, err}
			}
			var wait bool
			switch strings.ToUpper(s.v.GetString("job-schedule-strategy")) {
			case "WAIT":
				wait = true
			case "REJECT":
			default:
				return &exitError{2, fmt.Errorf("job-schedule-strategy must be WAIT or REJECT, got %q", s.v.GetString("job-schedule-strategy"))}
			}
			auth, err := s.httpAuth()
			if err != nil {
				return &exitError{2, err}
			}
			sealer, err := s.sealer(false)
			if err != nil {
				return &exitError{2, err}
			}
			tapOpts, err := s.tapOptions()
			if err != nil {
				return &exitError{2, err}
			}
			var roles []string
			for _, r := range strings.Split(s.v.GetString("roles"), ",") {
				if r = strings.TrimSpace(r); r != "" {
					roles = append(roles, r)
				}
			}
			cfg := node.Config{ID: s.v.GetString("node-id"), Cluster: s.v.GetString("cluster"), Roles: roles,
				Bind: s.v.GetString("bind"), Consul: s.consulSettings().Address, ConsulAuth: s.consulSettings(), NATS: s.natsURL(), NATSAuth: s.natsAuth(), Tags: tags,
				CPU: s.v.GetFloat64("cpu"), MemoryMB: s.v.GetInt64("memory"),
				HTTP: s.httpAddress(), DataDir: s.v.GetString("data-dir"), Version: version,
				HTTPAuth: auth, Secrets: sealer, Taps: tapOpts,
				HTTPTLS: node.HTTPTLS{Cert: s.v.GetString("http.tls.cert"), Key: s.v.GetString("http.tls.key"), ClientCA: s.v.GetString("http.tls.client-ca")},
				Resources: resource.Options{Strategy: strategy, Wait: wait,
					Slot: resources.Profile{CPU: s.v.GetFloat64("slot.cpu"), MemoryMB: s.v.GetInt64("slot.memory")}},
				HistoryExpire: time.Duration(s.v.GetInt("history-job-expire-minutes")) * time.Minute,
				CheckTTL:      s.v.GetDuration("consul-check-ttl"), SessionTTL: s.v.GetDuration("consul-session-ttl"),
				LockDelay: s.v.GetDuration("consul-lock-delay"),
				Engine: engine.Config{Task: opts, Checkpoint: cpc, Log: log, ResolveTimeout: resolveTimeout(s), RemoteTLS: s.remoteTLS(),
					MetricsInterval:   s.v.GetDuration("metrics.interval"),
					NoProgressTimeout: s.v.GetDuration("watchdog.no-progress-timeout"), CancelTimeout: s.v.GetDuration("task.cancel-timeout")}}
			if !s.v.GetBool("dynamic-slot") {
				cfg.FixedSlots = s.v.GetInt("slot-num")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			n, err := node.Start(ctx, cfg)
			cancel()
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "stactor node %s started at %s (roles %s, cluster %s)\n", n.ID(), n.Address(), strings.Join(roles, ","), cfg.Cluster)
			if addr := n.HTTPAddr(); addr != "" {
				fmt.Fprintf(cmd.ErrOrStderr(), "stactor node %s: HTTP API and web page at %s://%s/ (answered while this node leads; redirected to the leader otherwise)\n", n.ID(), n.HTTPScheme(), addr)
			}
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			<-sigs
			fmt.Fprintln(cmd.ErrOrStderr(), "stactor node: leaving the cluster")
			n.Stop()
			return nil
		},
	}
	clusterFlags(cmd, s)
	f := cmd.Flags()
	f.String("roles", "master,worker", "roles: master, worker or both")
	f.String("nats", "nats://127.0.0.1:4222", "NATS URL (JetStream on)")
	f.String("tags", "", "worker tags k=v,k=v for tag_filter")
	f.Float64("cpu", 2, "CPU cores this worker offers")
	f.Int64("memory", 2048, "memory in MiB this worker offers")
	f.String("bind", "127.0.0.1:0", "host:port of this node's actor system (remote)")
	f.String("node-id", "", "node id (default: kept in --data-dir, else host-pid)")
	f.String("http", "", "host:port of the HTTP API, /metrics and web page (port 0: any; empty: none); other nodes redirect to the leader's")
	f.String("data-dir", "", "this node's directory (created if missing): without --node-id, the node id is kept in DIR/node-id across restarts")
	f.String("http-token", "", "bearer token of the HTTP API's admin role (also http.token, STACTOR_HTTP_TOKEN); needed to serve beyond loopback")
	for _, k := range []string{"roles", "tags", "cpu", "memory", "bind", "node-id", "data-dir"} {
		_ = s.v.BindPFlag(k, f.Lookup(k))
	}
	_ = s.v.BindPFlag("nats.url", f.Lookup("nats"))
	_ = s.v.BindPFlag("http.address", f.Lookup("http"))
	_ = s.v.BindPFlag("http.token", f.Lookup("http-token"))
	return cmd
}

// waitJob follows a job to its end (across leader changes), showing
// progress, and prints the Job Statistic Information block.
func waitJob(cmd *cobra.Command, s *settings, c *client.Client, id, file string) error {
	prog := newProgress(os.Stderr, isTerminal(os.Stderr), s.v.GetDuration("progress-interval"), id)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	tick := time.NewTicker(min(prog.every(), time.Second))
	defer tick.Stop()
	// The status is polled every second, the progress shown every
	// prog.every() (progress-interval off a terminal).
	nextShow := time.Now().Add(prog.every())
	interrupts := 0
	var st *messages.JobStatus
	for {
		select {
		case <-sigs:
			interrupts++
			prog.clear()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			if interrupts == 1 {
				fmt.Fprintf(os.Stderr, "stactor: taking a savepoint of job %s (interrupt again to cancel)\n", id)
				_ = c.Send(ctx, &messages.Savepoint{JobId: id})
			} else {
				fmt.Fprintf(os.Stderr, "stactor: cancelling job %s\n", id)
				_ = c.Send(ctx, &messages.CancelJob{JobId: id})
			}
			cancel()
		case <-tick.C:
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			got, err := c.Status(ctx, id)
			cancel()
			if err != nil {
				return err
			}
			st = got
			if state.JobEnded(st.State) || st.State == "UNKNOWN" {
				prog.clear()
				printStatistics(cmd.OutOrStdout(), st)
				switch st.State {
				case state.JobFinished:
					return nil
				case state.JobSavepointDone:
					fmt.Fprintf(os.Stderr, "stactor: job %s stopped with a savepoint; continue it with:\n  stactor restore %s\n", id, id)
					return &exitError{130, nil}
				case state.JobCanceled:
					return &exitError{130, fmt.Errorf("job %s was canceled", id)}
				}
				return &exitError{1, fmt.Errorf("job %s %s: %s", id, strings.ToLower(st.State), st.Error)}
			}
			if now := time.Now(); !now.Before(nextShow) {
				prog.show(st)
				nextShow = now.Add(prog.every())
			}
		}
	}
}

func newSubmitCmd(s *settings, restore bool) *cobra.Command {
	var f runFlags
	var async, preview bool
	use, short := "submit -c FILE", "Run a job on the cluster"
	if restore {
		use, short = "restore JOB_ID [-c FILE]", "Continue a job on the cluster from its latest savepoint or checkpoint (with the plan it was resolved with, or with FILE re-resolved)"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if restore {
				if len(args) != 1 {
					return &exitError{2, errors.New("stactor restore JOB_ID [-c FILE]")}
				}
				f.jobID = args[0]
			} else if len(args) == 1 {
				f.file = args[0]
			}
			if f.file == "" && !restore {
				return &exitError{2, errors.New("no job file: -c FILE")}
			}
			vars, err := parseVars(f.vars)
			if err != nil {
				return &exitError{2, err}
			}
			if preview {
				return previewRestore(cmd, s, f.jobID, f.file, vars)
			}
			// This process is the job's client (DESIGN §2): it reads the
			// file and its includes and fills the variables from -i and
			// its own environment; the leader resolves the rest.
			var tree *messages.Hocon
			if f.file != "" {
				src, err := os.ReadFile(f.file)
				if err != nil {
					return &exitError{2, fmt.Errorf("cannot read job file: %w", err)}
				}
				if tree, _, err = config.ParseForSubmit(f.file, src, vars); err != nil {
					return &exitError{2, err}
				}
			}
			id := f.jobID
			if id == "" {
				id = strconv.FormatInt(time.Now().UnixNano()/1000, 10)
			}
			c, err := dial(s)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), engine.SubmitTimeout(0))
			reply, err := c.Submit(ctx, &messages.SubmitJob{JobId: id, File: f.file, Tree: tree, Vars: vars, Name: f.name, Restore: restore})
			cancel()
			for _, w := range reply.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			if err != nil {
				return &exitError{2, err}
			}
			printGuarantees(cmd.ErrOrStderr(), reply.Guarantees)
			fmt.Fprintf(cmd.ErrOrStderr(), "job %s submitted\n", id)
			if async {
				fmt.Fprintln(cmd.OutOrStdout(), id)
				return nil
			}
			return waitJob(cmd, s, c, id, f.file)
		},
	}
	clusterFlags(cmd, s)
	cmd.Flags().StringVarP(&f.file, "config", "c", "", "job file")
	cmd.Flags().StringArrayVarP(&f.vars, "variable", "i", nil, "variable name=value (repeatable)")
	cmd.Flags().StringVarP(&f.name, "name", "n", "", "job name")
	if !restore {
		cmd.Flags().StringVar(&f.jobID, "job-id", "", "job id (default: generated)")
	}
	cmd.Flags().BoolVar(&async, "async", false, "print the job id and return at once")
	if restore {
		cmd.Flags().BoolVar(&preview, "preview", false, "say what the restore would start from, and run nothing: per pipeline the checkpoint, its age, the splits still to read, the commits pending, the parallelism changes (with -c FILE, of FILE re-resolved)")
		cmd.Flags().String("nats", "", "with --preview: read the cluster's checkpoint storage on NATS JetStream at this URL (default: local storage, STACTOR_HOME)")
	}
	return cmd
}

// previewRestore prints checkpoint.PreviewRestore for restore --preview.
func previewRestore(cmd *cobra.Command, s *settings, id, file string, vars map[string]string) error {
	store, where, closeStore, err := openStore(cmd, s)
	if err != nil {
		return err
	}
	defer closeStore()
	spec, err := store.LoadJob(id)
	if err != nil {
		return &exitError{2, fmt.Errorf("no job %s in %s", id, where)}
	}
	var run *plan.Plan
	if file != "" {
		src, err := os.ReadFile(file)
		if err != nil {
			return &exitError{2, fmt.Errorf("cannot read job file: %w", err)}
		}
		_, job, err := config.ParseForSubmit(file, src, vars)
		if err != nil {
			return &exitError{2, err}
		}
		ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout(s))
		defer cancel()
		if run, err = plan.Resolve(ctx, job, id); err != nil {
			return &exitError{2, err}
		}
	}
	p, err := checkpoint.PreviewRestore(store, spec, run, time.Now())
	if err != nil {
		return &exitError{2, err}
	}
	fmt.Fprint(cmd.OutOrStdout(), p.String())
	return nil
}

func newListCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use: "list", Short: "List the cluster's jobs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := dial(s)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			jobs, err := c.List(ctx)
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "JOB ID\tNAME\tSTATE\tSTARTED\tREAD\tWRITTEN")
			for _, j := range jobs {
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\n", j.JobId, j.Name, j.State, time.UnixMilli(j.StartUnixMs).Format(time.DateTime), j.ReadRows, j.WriteRows)
			}
			return w.Flush()
		},
	}
	clusterFlags(cmd, s)
	return cmd
}

func newStatusCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use: "status JOB_ID", Short: "Show a job's state", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := dial(s)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			st, err := c.Status(ctx, args[0])
			if err != nil {
				return err
			}
			if st.State == "UNKNOWN" {
				return &exitError{2, fmt.Errorf("%s", st.Error)}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "job %s (%s): %s\n", st.JobId, st.Name, st.State)
			if st.Error != "" {
				fmt.Fprintf(out, "cause: %s\n", st.Error)
			}
			fmt.Fprintf(out, "read %d, written %d\n", st.ReadRows, st.WriteRows)
			for _, p := range st.Pipelines {
				fmt.Fprintf(out, "pipeline %d: %s (attempt %d)\n", p.Id, p.State, p.Attempt)
			}
			return nil
		},
	}
	clusterFlags(cmd, s)
	return cmd
}

func newSignalCmd(s *settings, use, short string, msg func(id string) any) *cobra.Command {
	cmd := &cobra.Command{
		Use: use, Short: short, Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := dial(s)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err = c.Send(ctx, msg(args[0]))
			cancel()
			if err != nil {
				return err
			}
			// Wait for the job to end, so the command's exit says how. A
			// savepoint drains what is in flight first, which may take
			// longer than any one request: only each request is bounded.
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				st, err := c.Status(ctx, args[0])
				cancel()
				if err != nil {
					return err
				}
				if st.State == "UNKNOWN" {
					return &exitError{2, fmt.Errorf("%s", st.Error)}
				}
				if state.JobEnded(st.State) {
					fmt.Fprintf(cmd.OutOrStdout(), "job %s: %s\n", args[0], st.State)
					return nil
				}
				time.Sleep(200 * time.Millisecond)
			}
		},
	}
	clusterFlags(cmd, s)
	return cmd
}

func newMembersCmd(s *settings) *cobra.Command {
	cmd := &cobra.Command{
		Use: "members", Short: "List the cluster's nodes (roles, resources, tags, health; * marks the leader)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := dial(s)
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			ms, err := c.Members(ctx)
			if err != nil {
				return err
			}
			leader, _, _ := c.Leader(ctx)
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NODE\tADDRESS\tROLES\tCPU\tMEMORY\tTAGS\tHEALTH")
			for _, m := range ms {
				mark := " "
				if m.ID == leader {
					mark = "*"
				}
				health := "passing"
				if !m.Healthy {
					health = "critical"
				}
				var tags []string
				for k, v := range m.Tags {
					tags = append(tags, k+"="+v)
				}
				fmt.Fprintf(w, "%s%s\t%s\t%s\t%g\t%d MiB\t%s\t%s\n", mark, m.ID, m.Address, strings.Join(m.Roles, ","), m.CPU, m.MemoryMB, strings.Join(tags, ","), health)
			}
			return w.Flush()
		},
	}
	clusterFlags(cmd, s)
	return cmd
}

func clusterCommands(s *settings) []*cobra.Command {
	return []*cobra.Command{
		newNodeCmd(s), newSubmitCmd(s, false), newSubmitCmd(s, true), newListCmd(s), newStatusCmd(s),
		newSignalCmd(s, "cancel JOB_ID", "Cancel a job on the cluster", func(id string) any { return &messages.CancelJob{JobId: id} }),
		newSignalCmd(s, "savepoint JOB_ID", "Take a savepoint of a job and stop it (SAVEPOINT_DONE)", func(id string) any { return &messages.Savepoint{JobId: id} }),
		newMembersCmd(s),
	}
}
