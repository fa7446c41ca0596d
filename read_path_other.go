//go:build !linux

package toolnexus

import "os"

// readPath encodes the file at path, opened with [os.Open].
func (pr PartReader) readPath(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", readError(err)
	}
	defer f.Close()
	return pr.readFile(f, path)
}
