package config

import (
	"fmt"
	"regexp"
)

// A ${name} left in a quoted string after the client filled the job's
// variables (-i, the environment) is an error, as in SeaTunnel: `path =
// "${out}"` without -i out=... must not write into a folder named
// "${out}". Left alone are SeaTunnel's table placeholders, which sinks fill
// per input table (TablePlaceholder), and anything in an option declared
// Template, whose plugin fills its own names (LocalFile's
// file_name_expression, Kafka's topic).

// placeholder matches ${name} and ${name:default}.
var placeholder = regexp.MustCompile(`\$\{([^}:]*)(:[^}]*)?\}`)

// tablePlaceholders are SeaTunnel's TablePlaceholder names.
var tablePlaceholders = map[string]bool{
	"database_name": true, "schema_name": true, "table_name": true, "schema_full_name": true,
	"table_full_name": true, "primary_key": true, "unique_key": true, "field_names": true,
}

// unresolvedVariable returns the first ${name} in s that is not a table
// placeholder, or "".
func unresolvedVariable(s string) string {
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		if !tablePlaceholders[m[1]] {
			return m[0]
		}
	}
	return ""
}

func unresolvedError(v string) error {
	return fmt.Errorf("unresolved variable %s: give it with -i %s=VALUE or in the environment", v, placeholder.FindStringSubmatch(v)[1])
}
