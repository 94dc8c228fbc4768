package harness

import (
	"fmt"
	"os"
	"strings"
)

// WriteSection replaces the named section of a Markdown file, between
// the lines "<!-- begin NAME -->" and "<!-- end NAME -->", with body; a
// missing section is appended, a missing file created. What lies outside
// the markers (notes written by hand) is kept.
func WriteSection(path, name, body string) error {
	begin, end := "<!-- begin "+name+" -->", "<!-- end "+name+" -->"
	old, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	text := string(old)
	block := begin + "\n" + strings.TrimRight(body, "\n") + "\n" + end
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	switch {
	case i >= 0 && j > i:
		text = text[:i] + block + text[j+len(end):]
	case i >= 0 || j >= 0:
		return fmt.Errorf("%s: section %s has only one of its markers", path, name)
	default:
		if text != "" && !strings.HasSuffix(text, "\n\n") {
			text = strings.TrimRight(text, "\n") + "\n\n"
		}
		text += block + "\n"
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
