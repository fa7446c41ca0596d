//go:build unix

package mcpbridge_test

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used so far, user and
// system, and true.
func cpuTime() (time.Duration, bool) {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		return 0, false
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano()), true
}
