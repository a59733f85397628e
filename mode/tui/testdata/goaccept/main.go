// Command goaccept is atomic with the uiscript example Go extension compiled in
// (examples/extensions/go/uiscript; TestE2EGoAcceptanceScript drives it in a PTY).
package main

import (
	"os"

	"github.com/atomic-cli/atomic/cli"
	"github.com/atomic-cli/atomic/examples/extensions/go/uiscript"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Extension{Name: "uiscript", Factory: uiscript.Factory}))
}
