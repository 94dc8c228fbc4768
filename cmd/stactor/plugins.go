package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/config"
	"github.com/stactor/stactor/connectors"
)

// newPluginsCmd lists the plugins (as SeaTunnel's seatunnel-connector.sh
// -l and Benthos's list do) with their declared delivery guarantees, and
// one plugin's options from the same declarations the validator checks.
func newPluginsCmd() *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use:   "plugins [NAME]",
		Short: "List the sources, transforms and sinks with their delivery guarantees, or one plugin's options",
		Long: `Without NAME, list every source, transform and sink with its declared
delivery guarantee (exactly-once, idempotent, at-least-once, none) and the
options it depends on. With NAME, print that plugin's options: type,
default (or required) and one line each, from the declarations the job
validator checks; the options every plugin takes (plugin_input,
plugin_output, parallelism) come last. --kind picks one kind when a name
is both a source and a sink (LocalFile, Jdbc, Kafka).`,
		Example: `  stactor plugins
  stactor plugins Jdbc --kind sink`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch kind {
			case "", "source", "transform", "sink":
			default:
				return &exitError{2, fmt.Errorf("--kind %q: want source, transform or sink", kind)}
			}
			out := cmd.OutOrStdout()
			if len(args) == 0 {
				w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, "KIND\tPLUGIN\tDELIVERY GUARANTEE")
				for _, p := range connectors.Plugins() {
					if kind == "" || p.Kind == kind {
						fmt.Fprintf(w, "%s\t%s\t%s\n", p.Kind, p.Name, p.Guarantee())
					}
				}
				return w.Flush()
			}
			var found []connectors.Plugin
			for _, p := range connectors.Plugins() {
				if strings.EqualFold(p.Name, args[0]) && (kind == "" || p.Kind == kind) {
					found = append(found, p)
				}
			}
			if len(found) == 0 {
				var known []string
				for _, p := range connectors.Plugins() {
					if kind == "" || p.Kind == kind {
						known = append(known, p.Name)
					}
				}
				return &exitError{2, fmt.Errorf("no plugin %q (known: %s)", args[0], strings.Join(uniq(known), ", "))}
			}
			for i, p := range found {
				if i > 0 {
					fmt.Fprintln(out)
				}
				printPlugin(out, p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&kind, "kind", "", "only this kind: source, transform or sink")
	return cmd
}

func printPlugin(out interface{ Write([]byte) (int, error) }, p connectors.Plugin) {
	fmt.Fprintf(out, "%s %s\ndelivery guarantee: %s\n\n", p.Kind, p.Name, p.Guarantee())
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "OPTION\tTYPE\tDEFAULT\tDESCRIPTION")
	for _, o := range append(append([]config.Option(nil), p.Options...), config.CommonPluginOptions...) {
		key := o.Key
		if o.Prefix {
			key += ".*"
		}
		if len(o.Fallbacks) > 0 {
			key += " (or " + strings.Join(o.Fallbacks, ", ") + ")"
		}
		typ := o.Type.String()
		if o.Type == config.TypeEnum {
			typ = strings.Join(o.Enum, "|")
		}
		def := ""
		switch {
		case o.Required:
			def = "required"
		case o.Default != nil:
			def = fmt.Sprint(o.Default)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", key, typ, def, o.Doc)
	}
	_ = w.Flush()
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
