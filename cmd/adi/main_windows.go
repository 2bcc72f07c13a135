package main

import (
	"fmt"
	"os"
)

// main refuses at once: adi drives Python processes through POSIX process groups, signals and
// FIFOs, which Windows does not have.
func main() {
	fmt.Fprintln(os.Stderr, "adi: Windows is not supported yet; run it in WSL or a Linux container")
	os.Exit(1)
}
