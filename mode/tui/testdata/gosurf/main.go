// Command gosurf is atomic with a Go extension compiled in that uses the ui surfaces of
// ext/ui_theme.go, ext/ui_autocomplete.go and ext/ui_render.go: a tool renderer, a message
// renderer, the theme, key hints and an autocomplete provider (mode/tui/e2e_uisurf_test.go).
package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/atomic-cli/atomic/cli"
	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// gauge draws the gauge tool's rows.
type gauge struct{ ui func() ext.UI }

func (gauge) Slots() (bool, bool) { return true, true }
func (gauge) Shell() string       { return ext.ShellDefault }

func (g gauge) RenderTool(_ context.Context, slot string, req ext.ToolRenderRequest) ([]string, bool) {
	th := ext.ThemeOf(g.ui())
	if slot == ext.SlotCall {
		return []string{th.Fg("accent", th.Bold("◆ GO-GAUGE")) + " " + th.Fg("warning", fmt.Sprint(req.Args["level"]))}, true
	}
	if req.Result == nil {
		return nil, false
	}
	text := ""
	for _, c := range req.Result.Content {
		text += c.Text
	}
	return []string{th.Fg("success", "GO-RESULT "+text) + th.Fg("muted", fmt.Sprintf(" expanded=%v", req.Expanded))}, true
}

// card draws "go-card" messages.
type card struct{ ui func() ext.UI }

func (c card) RenderMessage(_ context.Context, req ext.MessageRenderRequest) ([]string, bool) {
	th := ext.ThemeOf(c.ui())
	return []string{th.Bg("customMessageBg", th.Fg("customMessageLabel", " GO-CARD ")+" "+strings.Trim(string(req.Content), `"`))}, true
}

// dollar completes "%" tokens and delegates the rest.
type dollar struct{ below ext.AutocompleteProvider }

func (dollar) TriggerCharacters() []string { return []string{"%"} }

func (d dollar) Suggestions(ctx context.Context, req ext.AutocompleteRequest) *ext.AutocompleteSuggestions {
	line := []rune(req.Lines[req.CursorLine])
	before := string(line[:min(req.CursorCol, len(line))])
	i := strings.LastIndex(before, "%")
	if i < 0 || strings.ContainsAny(before[i:], " ") {
		return d.below.Suggestions(ctx, req)
	}
	return &ext.AutocompleteSuggestions{Prefix: before[i:], Items: []ext.AutocompleteItem{{Value: "%GO_MACRO%", Label: "%GO_MACRO%", Description: "from Go"}}}
}

func (d dollar) Apply(req ext.AutocompleteRequest, item ext.AutocompleteItem, prefix string) ext.AutocompleteEdit {
	if strings.HasPrefix(item.Value, "%") {
		return ext.ReplacePrefix(req, item.Value, prefix)
	}
	return d.below.Apply(req, item, prefix)
}

func extension(api ext.API) error {
	var ui ext.UI = ext.NoUI{}
	current := func() ext.UI { return ui }
	def := ext.ToolDefinition{
		Name: "gauge", Description: "Read a gauge",
		Parameters: []byte(`{"type":"object","properties":{"level":{"type":"string"}}}`),
		Execute: func(ctx context.Context, c ext.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
			return tool.TextResult("gauge at "+fmt.Sprint(call.Args["level"]), nil), nil
		},
		Renderer: gauge{current},
	}
	if err := api.RegisterTool(def); err != nil {
		return err
	}
	api.RegisterMessageRenderer("go-card", card{current})
	ext.On(api, func(c ext.Context, _ *ext.SessionStart) (ext.None, error) {
		ui = c.UI()
		ext.AddAutocompleteProvider(c.UI(), func(below ext.AutocompleteProvider) ext.AutocompleteProvider { return dollar{below} })
		return nil, nil
	})
	return api.RegisterCommand("gosurf", ext.Command{
		Description: "exercise the ui surfaces from Go",
		Handler: func(ctx context.Context, c ext.CommandContext, args string) error {
			u := c.UI()
			th := ext.ThemeOf(u)
			ext.SetWidgetAt(u, "gosurf", []string{
				th.Fg("accent", "GO-THEMED") + " theme=" + th.Name,
				"hint=[" + ext.KeyHint(u, "app.tools.expand", "to expand") + "]",
			}, ext.WidgetBelowEditor)
			return c.SendMessage(ext.CustomMessage{CustomType: "go-card", Content: []llm.Content{{Type: llm.ContentText, Text: "from go"}}, Display: true}, ext.SendOptions{})
		},
	})
}

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Extension{Name: "gosurf", Factory: extension}))
}
