// Command atomic is the coding agent's binary: the command line of package cli with no
// compiled-in Go extensions. It imports cli only.
package main

import (
	"os"

	"github.com/atomic-cli/atomic/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
