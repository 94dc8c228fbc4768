package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/monitor/tap"
)

func newTapCmd(s *settings) *cobra.Command {
	var rows int
	var sample float64
	var format string
	cmd := &cobra.Command{
		Use:   "tap JOB_ID [VERTEX]",
		Short: "Print rows flowing out of a vertex of a running job",
		Long: `Print the rows leaving a vertex of a running job, with their kind and
table, until interrupted or --rows rows were printed. VERTEX is a vertex id,
a vertex name (Source[0]-FakeSource), a plugin name (Sql) or a plugin_output
table; without it every vertex is tapped. A sink's tap shows what it writes.

Taps cost a job nothing while no one listens. A listener's rows are sampled
(--sample, a share of the rows) and capped per subtask (the engine setting
tap.rows-per-second, 1000 by default); a tap never slows the job: rows it
cannot keep up with are skipped, and stderr says how many were missed.

For a cluster job, give the cluster's NATS server (--nats, or nats.url) and
--cluster. For a local stactor run, the server the run serves (or its
--nats) is found through STACTOR_HOME/run/JOB_ID.nats.`,
		Example: `  stactor tap 1733100000000000
  stactor tap 1733100000000000 Sql --rows 20
  stactor tap 1733100000000000 Sink[0]-Console --sample 0.01 --format json --nats nats://10.0.0.5:4222`,
		Args: cobra.RangeArgs(1, 2),
		PreRun: func(cmd *cobra.Command, _ []string) {
			_ = s.v.BindPFlag("cluster", cmd.Flags().Lookup("cluster"))
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			job, vertex := args[0], ""
			if len(args) == 2 {
				vertex = args[1]
			}
			if sample <= 0 || sample > 1 {
				return &exitError{2, fmt.Errorf("--sample %v: want a share of the rows in (0, 1]", sample)}
			}
			if rows < 0 {
				return &exitError{2, fmt.Errorf("--rows %d: want 0 (no limit) or more", rows)}
			}
			pr, err := tap.NewPrinter(cmd.OutOrStdout(), format)
			if err != nil {
				return &exitError{2, err}
			}
			nc, url, prefix, err := monitorConn(cmd, s, job)
			if err != nil {
				return err
			}
			defer nc.Close()
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			errw := cmd.ErrOrStderr()
			what := "every vertex"
			if vertex != "" {
				what = "vertex " + vertex
			}
			fmt.Fprintf(errw, "stactor tap: job %s, %s, on %s (%s); Ctrl-C stops\n", job, what, url, prefix)
			var printed, missed int64
			acked := false
			warn := time.AfterFunc(3*time.Second, func() {
				fmt.Fprintf(errw, "stactor tap: no running subtask of job %s has answered for %s yet (is the job running, on this NATS server and cluster?); still waiting\n", job, what)
			})
			defer warn.Stop()
			limit := -1
			err = tap.Listen(ctx, nc, tap.ListenOptions{Prefix: prefix, Job: job, Vertex: vertex, Sample: sample}, func(ev tap.Event) bool {
				if ev.Ack != nil {
					if !acked {
						warn.Stop()
						acked = true
					}
					for _, v := range ev.Ack.Vertices {
						fmt.Fprintf(errw, "stactor tap: tapping %s (id %d), pipeline %d, subtask %d, attempt %d\n", v.Name, v.ID, ev.Ack.Pipeline, ev.Ack.Subtask, ev.Ack.Attempt)
					}
					return true
				}
				if ev.Missed > 0 {
					missed += ev.Missed
					fmt.Fprintf(errw, "stactor tap: missed %d rows of %s subtask %d (the tap or this listener fell behind)\n", ev.Missed, ev.Msg.Name, ev.Msg.Subtask)
				}
				if rows > 0 {
					limit = rows - int(printed)
				}
				n, err := pr.Print(ev.Msg, limit)
				printed += int64(n)
				if err != nil {
					return false // stdout is gone (a closed pipe)
				}
				return rows == 0 || printed < int64(rows)
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(errw, "stactor tap: %d rows printed, %d missed\n", printed, missed)
			return nil
		},
	}
	monitorFlags(cmd)
	cmd.Flags().IntVar(&rows, "rows", 0, "stop after this many rows (0: until interrupted)")
	cmd.Flags().Float64Var(&sample, "sample", 1, "share of the rows to show, in (0, 1]: 0.01 shows every hundredth row")
	cmd.Flags().StringVar(&format, "format", "table", "table or json (one object per row)")
	return cmd
}
