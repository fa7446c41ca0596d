// Command screenshot is a tool that returns an image: it reads a PNG into a
// part, describes it in the output for models that cannot see images, and
// prints the result as the JSON a host would store or send.
//
//	go run ./examples/screenshot [file.png]
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/toolnexus-go/toolnexus"
)

// screenshot is the tool. A failure is a result the model reads, not a Go
// error: the model can pick another file and carry on.
func screenshot(path string) toolnexus.ToolResult {
	part, err := toolnexus.PartFromFileLimit(path, 10<<20)
	if err != nil {
		return toolnexus.Errorf("cannot read %s: %v", filepath.Base(path), err)
	}
	desc := fmt.Sprintf("%s (%s, %d bytes)", filepath.Base(path), part.MIMEType, part.Size())
	return toolnexus.Ok(desc, part)
}

func run(w io.Writer, path string) error {
	res := screenshot(path)
	fmt.Fprintln(w, res) // logs and people see a description, never the bytes
	out, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

func main() {
	path := "testdata/fixture.png"
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(os.Stdout, path); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
