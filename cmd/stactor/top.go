package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/messages"
	"github.com/stactor/stactor/monitor/metrics"
	"github.com/stactor/stactor/monitor/top"
)

func newTopCmd(s *settings) *cobra.Command {
	var once bool
	var job string
	cmd := &cobra.Command{
		Use:   "top",
		Short: "Live view of running jobs: vertices, rates, backpressure, checkpoints",
		Long: `Show the running jobs of a cluster (or of a local stactor run) live, from
the metrics snapshots their JobMasters publish on NATS every metrics.interval
(2 s): per job its rows read and written and their rates, per pipeline its
state, attempt and last checkpoint (age, duration, size, channel batches),
per vertex its rows in and out, rates and busy / idle / backpressured time
(Flink's, per second), and with s per subtask its queues too.

Keys: q or Ctrl-C quits, s shows or hides the subtasks. Plain text, no
colours or mouse: it works over SSH. When stdout is not a terminal it
prints a frame every second; --once prints one frame and exits.`,
		Example: `  stactor top --nats nats://10.0.0.5:4222 --cluster prod
  stactor top --job 1733100000000000 --once`,
		Args: cobra.NoArgs,
		PreRun: func(cmd *cobra.Command, _ []string) {
			_ = s.v.BindPFlag("cluster", cmd.Flags().Lookup("cluster"))
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			nc, url, prefix, err := monitorConn(cmd, s, job)
			if err != nil {
				return err
			}
			defer nc.Close()
			md := &top.Model{}
			got := make(chan struct{}, 1)
			sub, err := metrics.Subscribe(nc, prefix, job, func(m *messages.JobMetrics) {
				md.Update(m, time.Now())
				select {
				case got <- struct{}{}:
				default:
				}
			})
			if err != nil {
				return err
			}
			defer sub.Unsubscribe() //nolint:errcheck // ends with the command
			source := url + " " + prefix
			if once {
				// Snapshots come every metrics.interval: wait for the first,
				// then a little for the other jobs'.
				select {
				case <-got:
					time.Sleep(300 * time.Millisecond)
				case <-time.After(2*s.v.GetDuration("metrics.interval") + time.Second):
				}
				return top.Render(cmd.OutOrStdout(), md.Jobs(time.Now()), time.Now(), top.View{Source: source, Subtasks: true})
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			if err := top.Run(ctx, os.Stdin, os.Stdout, md, source, time.Second); err != nil {
				return fmt.Errorf("top: %w", err)
			}
			return nil
		},
	}
	monitorFlags(cmd)
	cmd.Flags().BoolVar(&once, "once", false, "print one frame (with subtasks) and exit")
	cmd.Flags().StringVar(&job, "job", "", "show only this job (and find a local run's server by it)")
	return cmd
}
