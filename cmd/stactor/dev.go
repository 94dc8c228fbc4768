package main

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stactor/stactor/internal/devpki"
)

func newDevCmd() *cobra.Command {
	dev := &cobra.Command{Use: "dev", Short: "Helpers for a development cluster"}
	var hosts []string
	var days int
	certs := &cobra.Command{
		Use:   "certs DIR",
		Short: "Make a throwaway CA, a node certificate and credentials for a TLS, authenticated dev cluster",
		Long: `Make, in DIR, a throwaway certificate authority (ca-ca.pem), a certificate
and key for the nodes and the CLI (node.pem, node.key; server and client,
naming 127.0.0.1, localhost and every --host), random HTTP tokens and a
secrets key, and stactor.env: the STACTOR_* settings that turn on TLS and
credentials on every link (HTTPS API with tokens, NATS TLS, protoactor
remote mutual TLS, sealed secrets). Source it in each node's and the CLI's
shell, or pass it to go tool task cluster -- -tls. Not for production: the
keys are unencrypted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := filepath.Abs(args[0])
			if err != nil {
				return &exitError{2, err}
			}
			ca, err := devpki.New(dir, "stactor-dev", time.Duration(days)*24*time.Hour)
			if err != nil {
				return err
			}
			cert, key, err := ca.Issue("node", hosts...)
			if err != nil {
				return err
			}
			token := func() string {
				b := make([]byte, 16)
				_, _ = rand.Read(b)
				return hex.EncodeToString(b)
			}
			secrets := make([]byte, 32)
			if _, err := rand.Read(secrets); err != nil {
				return err
			}
			env := []string{
				"STACTOR_REMOTE_TLS_CA=" + ca.File, "STACTOR_REMOTE_TLS_CERT=" + cert, "STACTOR_REMOTE_TLS_KEY=" + key,
				"STACTOR_NATS_TLS_CA=" + ca.File, "STACTOR_NATS_TLS_CERT=" + cert, "STACTOR_NATS_TLS_KEY=" + key,
				"STACTOR_HTTP_TLS_CERT=" + cert, "STACTOR_HTTP_TLS_KEY=" + key,
				"STACTOR_HTTP_TOKEN=" + token(), "STACTOR_HTTP_READ_TOKEN=" + token(),
				"STACTOR_SECRETS_KEY=" + hex.EncodeToString(secrets),
			}
			file := filepath.Join(dir, "stactor.env")
			var b strings.Builder
			b.WriteString("# STACTOR_* settings of a TLS, authenticated dev cluster (made by stactor dev certs).\n")
			for _, e := range env {
				b.WriteString("export " + e + "\n")
			}
			if err := os.WriteFile(file, []byte(b.String()), 0o600); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "CA        %s\nnode      %s, %s\nsettings  %s (source it: . %s)\n", ca.File, cert, key, file, file)
			return nil
		},
	}
	certs.Flags().StringArrayVar(&hosts, "host", nil, "another IP or DNS name the nodes are reached at (repeatable)")
	certs.Flags().IntVar(&days, "days", 30, "days the certificates are valid")
	dev.AddCommand(certs)
	return dev
}
