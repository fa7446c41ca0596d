package toolnexus_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADME checks what STYLE.md asks of the README: at most 160 lines,
// and every line of Go code in it held by an Example or a test of the
// repository, which CI compiles, so that a snippet a user copies
// compiles as written. A line's code is compared without its trailing
// comment and with its spaces collapsed, as gofmt may align it.
func TestREADME(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.LessOrEqual(t, strings.Count(string(readme), "\n"), 160, "README.md is at most 160 lines")

	var tests strings.Builder
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && path != "."):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, "_test.go") || path == "readme_test.go":
			return nil
		}
		b, err := os.ReadFile(path)
		for _, line := range strings.Split(string(b), "\n") {
			tests.WriteString(codeOf(line) + "\n")
		}
		return err
	})
	require.NoError(t, err)
	held := "\n" + tests.String()

	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	require.NotEmpty(t, blocks)
	for _, block := range blocks {
		for _, line := range strings.Split(block[1], "\n") {
			code := codeOf(line)
			if code == "" || code == "}" || code == "})" || code == "}))" {
				continue
			}
			assert.True(t, strings.Contains(held, "\n"+code+"\n"), "README line %q is in no Example or test", strings.TrimSpace(line))
		}
	}
}

// codeOf returns line's code: without a trailing // comment outside a
// string, its spaces collapsed.
func codeOf(line string) string {
	inString := byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case inString != 0 && c == '\\' && inString == '"':
			i++
		case inString != 0 && c == inString:
			inString = 0
		case inString == 0 && (c == '"' || c == '`'):
			inString = c
		case inString == 0 && c == '/' && i+1 < len(line) && line[i+1] == '/':
			line = line[:i]
		}
	}
	return strings.Join(strings.Fields(line), " ")
}
