// Package leaktest is the leak test every module of the repository runs:
// it finds the module's exported types with go/parser, so that a new type
// cannot escape it, and checks that no verb of fmt and neither handler of
// log/slog prints the payload a value of each holds. It depends on the
// standard library alone; users of the module never name it.
package leaktest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Values are, for each exported type of a module, named "module/dir.Name",
// the values that hold data, the payload Check makes, to print; nil for a
// type that can hold none (say why beside it).
type Values map[string]func(data string) []any

// Check requires an entry in values for every exported type of the
// packages under the current directory, module's, and none for a type the
// module does not have, and checks each value, and a pointer to it, with
// every verb of fmt and both handlers of log/slog: none may print a window
// of data as it is, in hex, or as fmt prints a byte slice.
func Check(t *testing.T, module string, values Values) {
	t.Helper()
	raw := make([]byte, 48)
	_, _ = rand.Read(raw)
	data := base64.StdEncoding.EncodeToString(raw)
	found := exportedTypes(t, module)
	for name := range values {
		if !slices.Contains(found, name) {
			t.Errorf("values name %s, a type the module does not have", name)
		}
	}
	for _, name := range found {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			v, ok := values[name]
			if !ok {
				t.Fatalf("%s has no entry: add values of it holding data, or say why it can hold none", name)
			}
			if v == nil {
				return
			}
			for _, x := range v(data) {
				PrintsNoPayload(t, x, data)
			}
		})
	}
}

// exportedTypes returns the exported types of the packages under the
// current directory, "module/dir.Name", read from their sources, leaving
// out testdata and nested modules.
func exportedTypes(t *testing.T, module string) []string {
	t.Helper()
	var names []string
	parsed := 0
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if dir != "." {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			parsed++
			for _, decl := range f.Decls {
				if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.TYPE {
					for _, spec := range g.Specs {
						if ts := spec.(*ast.TypeSpec); ts.Name.IsExported() {
							names = append(names, path.Join(module, filepath.ToSlash(dir))+"."+ts.Name.Name)
						}
					}
				}
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if parsed == 0 {
		t.Fatal("the walk found no source")
	}
	return names
}

// PrintsNoPayload checks every verb of fmt and both handlers of log/slog,
// for v and a pointer to it, for a window of data as it is, in hex, or as
// the bytes fmt prints a byte slice with.
func PrintsNoPayload(t *testing.T, v any, data string) {
	t.Helper()
	var windows []string
	for _, at := range []int{0, len(data)/2 - 8, len(data) - 16} {
		w := []byte(data[at : at+16])
		windows = append(windows, string(w), hex.EncodeToString(w), strings.Trim(fmt.Sprint(w), "[]"),
			strings.TrimSuffix(strings.TrimPrefix(fmt.Sprintf("%#v", w), "[]byte{"), "}"))
	}
	ptr := reflect.New(reflect.TypeOf(v))
	ptr.Elem().Set(reflect.ValueOf(v))
	for _, x := range []any{v, ptr.Interface()} {
		outs := map[string]string{}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "%d"} {
			outs[fmt.Sprintf("%T %s", x, verb)] = fmt.Sprintf(verb, x)
		}
		var text, js bytes.Buffer
		slog.New(slog.NewTextHandler(&text, nil)).Info("m", "v", x, slog.Group("g", "v", x))
		slog.New(slog.NewJSONHandler(&js, nil)).Info("m", "v", x, slog.Group("g", "v", x))
		outs[fmt.Sprintf("%T slog text", x)], outs[fmt.Sprintf("%T slog JSON", x)] = text.String(), js.String()
		for how, out := range outs {
			for _, w := range windows {
				if strings.Contains(out, w) {
					i := max(strings.Index(out, w)-150, 0)
					t.Errorf("%s prints the payload: …%.300q", how, out[i:])
					break
				}
			}
		}
	}
}
