// Command screenshot is a tool that returns an image: it reads a PNG into a
// part, describes it in the output for models that cannot see images, and
// prints the result as the JSON a host would store or send. Run it from the
// examples module:
//
//	go run ./screenshot             # the test card built into the program
//	go run ./screenshot shot.png    # a PNG in the current directory
package main

import (
	"embed"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/toolnexus-go/toolnexus"
)

//go:embed fixture.png
var testCard embed.FS

// screenshot is the tool. It reads the file the model named from files, the
// one directory the host lets it read, so that a name such as
// "../../secret.png" cannot reach outside it, and refuses a file over 10 MiB.
// A failure is a result the model reads, not a Go error: the model can pick
// another file and carry on.
func screenshot(files fs.FS, name string) toolnexus.ToolResult {
	part, err := toolnexus.PartReader{MaxBytes: 10 << 20}.FS(files, name)
	if err != nil {
		return toolnexus.Errorf("no screenshot: %v", err)
	}
	desc := fmt.Sprintf("%s (%s, %d bytes)", name, part.MIMEType, part.Size())
	return toolnexus.Ok(desc, part)
}

func run(w io.Writer, files fs.FS, name string) error {
	res := screenshot(files, name)
	fmt.Fprintln(w, res) // logs and people see a description, never the bytes
	out, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", out)
	return err
}

func main() {
	files, name := fs.FS(testCard), "fixture.png"
	if len(os.Args) > 1 {
		root, err := os.OpenRoot(".")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer root.Close()
		files, name = root.FS(), os.Args[1]
	}
	if err := run(os.Stdout, files, name); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
