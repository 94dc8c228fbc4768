package localfile

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/stactor/stactor/config"
)

// fileInfo is one file the source reads.
type fileInfo struct {
	path string
	size int64
}

// fileFilter decides which files of a folder are read, as SeaTunnel's
// AbstractReadStrategy.getFileNamesByPath: not empty, not _SUCCESS, not
// hidden (stactor also skips hidden folders, where its sink stages files),
// matching file_filter_pattern and filename_extension.
type fileFilter struct {
	pattern *regexp.Regexp // anchored; matched against the name or the whole path
	ext     string         // with its dot
}

func (f fileFilter) accept(path string, size int64) bool {
	name := filepath.Base(path)
	if size == 0 || name == "_SUCCESS" || strings.HasPrefix(name, ".") {
		return false
	}
	if f.ext != "" && !strings.HasSuffix(name, f.ext) {
		return false
	}
	if f.pattern != nil && !f.pattern.MatchString(name) && !f.pattern.MatchString(path) {
		return false
	}
	return true
}

// compileFilter anchors file_filter_pattern: SeaTunnel uses Java's
// Matcher.matches(), a match of the whole name.
func compileFilter(pattern, ext string) (fileFilter, error) {
	var f fileFilter
	if pattern != "" {
		re, err := regexp.Compile("^(?:" + pattern + ")$")
		if err != nil {
			return f, err
		}
		f.pattern = re
	}
	if ext != "" {
		f.ext = "." + strings.TrimPrefix(ext, ".")
	}
	return f, nil
}

// listTable lists the files a table reads: those under its path that its
// filter accepts, each archive replaced by the files inside it.
func listTable(cfg *config.PluginConfig, sc *sourceConfig) ([]fileInfo, error) {
	filter, err := compileFilter(cfg.String("file_filter_pattern"), cfg.String("filename_extension"))
	if err != nil {
		return nil, cfg.Errorf("file_filter_pattern", "not a regular expression: %v", err)
	}
	files, err := listFiles(sc.root, filter)
	if err != nil {
		return nil, cfg.Errorf("path", "cannot read %s: %v", sc.root, err)
	}
	if sc.archive != "" {
		if files, err = expandArchives(files, sc.archive); err != nil {
			return nil, cfg.Errorf("archive_compress_codec", "%v", err)
		}
	}
	return files, nil
}

// listFiles lists root (a file or a folder, recursively), sorted by path.
func listFiles(root string, filter fileFilter) ([]fileInfo, error) {
	st, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if filter.accept(root, st.Size()) {
			return []fileInfo{{path: root, size: st.Size()}}, nil
		}
		return nil, nil
	}
	var out []fileInfo
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if d.IsDir() {
			if strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() && info.Mode()&fs.ModeSymlink == 0 {
			return nil
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			if info, err = os.Stat(path); err != nil || !info.Mode().IsRegular() {
				return nil
			}
		}
		if filter.accept(path, info.Size()) {
			out = append(out, fileInfo{path: path, size: info.Size()})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	return out, err
}

// partitionsOf reads the k=v folders of a file's path below root, in order
// (SeaTunnel's parsePartitionsByPath, which looks at the whole path; below
// root is enough and keeps folders above it out).
func partitionsOf(root, path string) (keys, values []string) {
	rel, err := filepath.Rel(root, filepath.Dir(path))
	if err != nil || rel == "." {
		return nil, nil
	}
	for _, seg := range strings.Split(filepath.ToSlash(rel), "/") {
		k, v, ok := strings.Cut(seg, "=")
		if !ok {
			continue
		}
		if i := strings.IndexByte(v, '='); i >= 0 {
			v = v[:i]
		}
		keys = append(keys, k)
		values = append(values, v)
	}
	return keys, values
}
