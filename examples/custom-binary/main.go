// Command custom-atomic is atomic with a Go extension compiled in: the whole atomic command line
// (package cli) plus the word_count tool of examples/extensions/go/wordcount. A module of your
// own does the same with its own extensions, without forking atomic: require
// github.com/atomic-cli/atomic, call cli.Main with your extensions, and go build.
package main

import (
	"os"

	"github.com/atomic-cli/atomic/cli"
	"github.com/atomic-cli/atomic/examples/extensions/go/wordcount"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Extension{Name: "wordcount", Factory: wordcount.Extension}))
}
