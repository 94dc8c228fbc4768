// Package config reads stactor's job files: SeaTunnel-shaped HOCON (or
// JSON) with env {}, source {}, transform {} and sink {} blocks, ${var}
// substitution from -i key=value and the environment, and each plugin's
// options checked against the options it declares — a missing or mistyped
// option is an error naming the file, line and key before anything runs;
// an unknown option is a warning (SeaTunnel job files often carry keys for
// other engines). The HOCON parser itself is config/hocon.
package config
