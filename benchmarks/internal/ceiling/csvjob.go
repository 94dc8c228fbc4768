package ceiling

import "fmt"

// CSVQuery is workload 2's query.
const CSVQuery = "SELECT id, UPPER(name) AS name, score FROM csv WHERE score >= 50"

// CSVJob is workload 2 for stactor, the job CSVToJSON must match byte for
// byte: LocalFile reads the CSV (in line-aligned blocks, one reader per
// core), Sql, LocalFile writes JSON lines into outDir.
func CSVJob(in, outDir string, parallelism int) string {
	return fmt.Sprintf(`env { job.mode = "BATCH", parallelism = %d }
source {
  LocalFile {
    plugin_output = "csv"
    path = %q
    file_format_type = "csv"
    skip_header_row_number = 1
    schema = { fields { id = bigint, name = string, score = double, city = string } }
  }
}
transform {
  Sql {
    plugin_input = "csv"
    plugin_output = "out"
    query = %q
  }
}
sink {
  LocalFile { plugin_input = "out", path = %q, file_format_type = "json" }
}
`, parallelism, in, CSVQuery, outDir)
}
