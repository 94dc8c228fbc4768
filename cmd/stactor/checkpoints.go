package main

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newCheckpointsCmd(s *settings) *cobra.Command {
	return &cobra.Command{
		Use:   "checkpoints JOB_ID",
		Short: "List a job's completed checkpoints and savepoints",
		Long: `List the completed checkpoints and savepoints that local storage
(STACTOR_HOME/checkpoints) holds for a job: id, pipeline, type, completion
time, size, and how long each took from trigger to completion.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, err := s.store()
			if err != nil {
				return err
			}
			if _, err := store.LoadJob(args[0]); err != nil {
				return &exitError{2, fmt.Errorf("no job %s in %s", args[0], s.v.GetString("home"))}
			}
			cps, err := store.List(args[0])
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tPIPELINE\tATTEMPT\tTYPE\tCOMPLETED\tSIZE\tDURATION\tCHANNEL BATCHES")
			for _, cp := range cps {
				fmt.Fprintf(w, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\n", cp.Id, cp.Pipeline, cp.Attempt, cp.Type,
					time.UnixMilli(cp.CompleteUnixMs).Format(time.DateTime+".000"), bytesText(cp.SizeBytes),
					time.Duration(cp.CompleteUnixMs-cp.TriggerUnixMs)*time.Millisecond, cp.ChannelBatches)
			}
			if len(cps) == 0 {
				fmt.Fprintln(w, "(none)")
			}
			return w.Flush()
		},
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
