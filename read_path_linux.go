package toolnexus

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// readPath encodes the file at path. A regular file is opened, stat'ed,
// read and closed with the bare system calls: [os.Open] would add four fcntl calls and an epoll_ctl that fails, as a
// regular file cannot be polled, which on a small file cost more than its
// read. Any other file, such as a directory or a pipe, is handed to an
// [*os.File] and read as [PartFromFS] reads it.
func (pr PartReader) readPath(path string) (string, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		return err
	})
	if err != nil {
		return "", readError(&fs.PathError{Op: "open", Path: path, Err: err})
	}
	var st syscall.Stat_t
	if err := ignoringEINTR(func() error { return syscall.Fstat(fd, &st) }); err != nil {
		_ = syscall.Close(fd)
		return "", readError(&fs.PathError{Op: "stat", Path: path, Err: err})
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG || st.Size <= 0 {
		f := os.NewFile(uintptr(fd), path)
		defer f.Close()
		return pr.readFile(f, path)
	}
	defer syscall.Close(fd)
	return pr.readRegular(fdReader{fd: fd, path: path}, st.Size, path)
}

// fdReader reads the file descriptor fd of the file at path, as an
// [*os.File] would: a read error is an [*fs.PathError], and the end of the
// file io.EOF.
type fdReader struct {
	fd   int
	path string
}

// Read reads up to len(p) bytes of r's file.
func (r fdReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = syscall.Read(r.fd, p)
		return err
	})
	switch {
	case err != nil:
		return 0, &fs.PathError{Op: "read", Path: r.path, Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// ignoringEINTR calls f until it fails with something other than EINTR,
// which a system call may report when a signal arrives, as on a network
// file system.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
