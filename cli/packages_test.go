package cli

import (
	"strings"
	"testing"
)

// The package command lines of pi and Atomic: -l for install and remove, uninstall as remove,
// update's positional source, --extension <source>, --all and --extensions; anything else is an
// error naming it.
func TestParsePackageCommand(t *testing.T) {
	ok := []struct {
		args []string
		want packageCommand
	}{
		{[]string{"install", "npm:x", "-l"}, packageCommand{name: "install", source: "npm:x", local: true}},
		{[]string{"uninstall", "--local", "./p"}, packageCommand{name: "remove", source: "./p", local: true}},
		{[]string{"update"}, packageCommand{name: "update"}},
		{[]string{"update", "--all"}, packageCommand{name: "update"}},
		{[]string{"update", "--extensions"}, packageCommand{name: "update"}},
		{[]string{"update", "git:github.com/o/r"}, packageCommand{name: "update", source: "git:github.com/o/r"}},
		{[]string{"update", "--extension", "npm:x"}, packageCommand{name: "update", source: "npm:x"}},
		{[]string{"list"}, packageCommand{name: "list"}},
		{[]string{"config", "-h"}, packageCommand{name: "config", help: true}},
	}
	for _, c := range ok {
		got, err := parsePackageCommand(c.args)
		if err != nil || got != c.want {
			t.Errorf("%v: got %+v, %v; want %+v", c.args, got, err, c.want)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"install"}, "which package?"},
		{[]string{"remove"}, "which package?"},
		{[]string{"install", "a", "b"}, `unexpected argument "b"`},
		{[]string{"list", "-l"}, "unknown option -l"},
		{[]string{"update", "--extension"}, "--extension needs a package source"},
		{[]string{"update", "x", "--extension", "y"}, "one package at a time"},
		{[]string{"update", "--self"}, "does not update itself"},
		{[]string{"install", "x", "--force"}, "unknown option --force"},
	}
	for _, c := range bad {
		if _, err := parsePackageCommand(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error with %q", c.args, err, c.want)
		}
	}
}
