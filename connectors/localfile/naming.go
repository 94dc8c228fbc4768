package localfile

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// stagingDir is the folder under a sink's path where writers stage files
// until they are committed. It is hidden: the LocalFile source skips it.
const stagingDir = ".stactor-staging"

// pathSafe keeps an id usable as one path segment.
func pathSafe(s string) string {
	if s == "" {
		return "_"
	}
	return strings.NewReplacer("/", "_", "\\", "_", "..", "_").Replace(s)
}

// transactionID is SeaTunnel's transaction id, T_<job>_<uuidPrefix>_
// <subtask>_<checkpoint>, with the pipeline in the place of SeaTunnel's
// random uuid prefix: it is deterministic, so committing the same info
// again names the same files.
func transactionID(job string, pipeline, subtask int, checkpoint int64) string {
	return fmt.Sprintf("T_%s_%d_%d_%d", pathSafe(job), pipeline, subtask, checkpoint)
}

// attemptDir is where the writers of one attempt of a pipeline stage:
// <attempt>-t<term>, the leader's term beside the attempt (DESIGN §6
// fencing names both in every staging name).
func attemptDir(root, job string, pipeline, attempt int, term uint64) string {
	return filepath.Join(pipelineStaging(root, job, pipeline), strconv.Itoa(attempt)+"-t"+strconv.FormatUint(term, 10))
}

// pipelineStaging holds the attempt folders of one pipeline.
func pipelineStaging(root, job string, pipeline int) string {
	return filepath.Join(root, stagingDir, pathSafe(job), strconv.Itoa(pipeline))
}

// stagedAttempt is the attempt of an attempt folder's name (ok false for a
// name that is not one; "<attempt>" alone was the name before terms).
func stagedAttempt(name string) (int, bool) {
	a, _, _ := strings.Cut(name, "-t")
	n, err := strconv.Atoi(a)
	return n, err == nil && n >= 0
}

// txnDir is where one writer stages the files of one transaction.
func txnDir(root, job string, pipeline, attempt int, term uint64, subtask int, seq int64) string {
	return filepath.Join(attemptDir(root, job, pipeline, attempt, term), strconv.Itoa(subtask), strconv.FormatInt(seq, 10))
}

// substitute replaces ${name} by vars[name], leaving unknown variables as
// they are (commons-text's StringSubstitutor, SeaTunnel's
// VariablesSubstitute).
func substitute(s string, vars map[string]string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		name := s[i+2 : i+j]
		if v, ok := vars[name]; ok {
			b.WriteString(s[:i])
			b.WriteString(v)
		} else {
			b.WriteString(s[:i+j+1])
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// codecSuffixes are SeaTunnel's CompressFormat.getCompressCodec: the part
// of a file name a compress_codec adds.
var codecSuffixes = map[string]string{
	"none": "", "lzo": ".lzo", "snappy": ".snappy", "lz4": ".lz4", "zlib": ".zlib",
	"gzip": ".gz", "brotli": ".br", "zstd": ".zstd",
}

// fileSuffix is how a sink's file names end, as SeaTunnel's
// generateFileName ends them: the codec's suffix, then the format's
// (FileFormat.getSuffix) or filename_extension in its place — whatever the
// format: `.gz.txt`, `.lzo.json`, `.snappy.parquet`, `.zlib.orc`,
// `.gz.dat` with filename_extension = dat.
func fileSuffix(format, codec, extension string) string {
	ext := suffix(format)
	if extension != "" {
		ext = extension
		if !strings.HasPrefix(ext, ".") {
			ext = "." + ext
		}
	}
	return codecSuffixes[codec] + ext
}
