// Package uiscript is a Go extension that walks the terminal UI surfaces of ctx.ui the way
// issue 12's acceptance script does for a TypeScript extension (mode/tui/testdata/acceptance):
// /goaccept sets a status and widgets above and below the editor, asks a select, a confirm with
// a 1.5-second deadline (its context's), a custom component that counts key presses and returns
// a value, an overlay that its Visible hides below 60 columns, and replaces the footer with one
// that reads the session; the "shout" tool draws its rows with its own renderer.
//
// Compile it into a binary with cli.Main (see examples/custom-binary):
//
//	cli.Main(os.Args[1:], cli.Extension{Name: "uiscript", Factory: uiscript.Factory})
package uiscript

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/atomic-cli/atomic/ext"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/tool"
)

// ConfirmWait is how long the confirm waits for an answer before it counts as "no".
const ConfirmWait = 1500 * time.Millisecond

// counter is a component that counts key presses; Enter returns "<title> <count>", Escape nil.
type counter struct {
	h     ext.ComponentHandle
	title string
	n     int
}

func (c *counter) Render(width int) []string {
	rows := []string{"+-- " + c.title + " --+", fmt.Sprintf("| go key presses: %d |", c.n), "| enter returns, esc cancels |"}
	for i, r := range rows {
		if len(r) > width {
			rows[i] = r[:width]
		}
	}
	return rows
}

func (c *counter) HandleInput(data string) {
	switch data {
	case "\r":
		c.h.Done(fmt.Sprintf("%s %d", strings.ToLower(c.title), c.n))
	case "\x1b":
		c.h.Done(nil)
	default:
		c.n++
		c.h.RequestRender()
	}
}

func (c *counter) Invalidate() {}

// footer shows how many replies the session's branch holds and the extension statuses; Go
// components render on every frame, so it is current after each turn.
type footer struct {
	ui   ext.UI
	sess func() ext.SessionView
}

func (f footer) Render(width int) []string {
	replies := 0
	if s := f.sess(); s != nil {
		for _, e := range s.Branch("") {
			if e.Message != nil && e.Message.Role == llm.RoleAssistant {
				replies++
			}
		}
	}
	var statuses []string
	if ff, ok := ext.UIAs[ext.FooterFactsUI](f.ui); ok {
		for _, v := range ff.FooterFacts().Statuses {
			statuses = append(statuses, v)
		}
	}
	line := ext.ThemeOf(f.ui).Fg("dim", fmt.Sprintf("GO-FOOTER replies=%d status=%s", replies, strings.Join(statuses, ",")))
	return []string{line}
}

func (footer) HandleInput(string) {}
func (footer) Invalidate()        {}

// shout draws the shout tool's call and result rows.
type shout struct{ ui func() ext.UI }

func (shout) Slots() (call, result bool) { return true, true }
func (shout) Shell() string              { return ext.ShellDefault }

func (s shout) RenderTool(_ context.Context, slot string, req ext.ToolRenderRequest) ([]string, bool) {
	th := ext.ThemeOf(s.ui())
	if slot == ext.SlotCall {
		return []string{th.Fg("toolTitle", th.Bold("GO-SHOUT-CALL ")) + th.Fg("accent", fmt.Sprint(req.Args["text"]))}, true
	}
	if req.Result == nil {
		return nil, false // the built-in renderer while it runs
	}
	var text strings.Builder
	for _, c := range req.Result.Content {
		text.WriteString(c.Text)
	}
	return []string{th.Fg("success", "GO-SHOUT-RESULT <"+text.String()+">")}, true
}

// Factory registers the shout tool and the /goaccept command.
func Factory(api ext.API) error {
	var ui ext.UI = ext.NoUI{}
	current := func() ext.UI { return ui }
	ext.On(api, func(c ext.Context, _ *ext.SessionStart) (ext.None, error) {
		ui = c.UI()
		return nil, nil
	})
	err := api.RegisterTool(ext.ToolDefinition{
		Name: "shout", Label: "Shout", Description: "Repeat the text in capitals.",
		Parameters: []byte(`{"type":"object","properties":{"text":{"type":"string","description":"what to shout"}},"required":["text"]}`),
		Execute: func(_ context.Context, _ ext.Context, call tool.Call, _ func(tool.Result)) (tool.Result, error) {
			return tool.TextResult(strings.ToUpper(fmt.Sprint(call.Args["text"])), nil), nil
		},
		Renderer: shout{current},
	})
	if err != nil {
		return err
	}
	return api.RegisterCommand("goaccept", ext.Command{Description: "walk the UI surfaces from Go", Handler: run})
}

// run is /goaccept. Each answer is added to the widget above the editor, where it stays.
func run(ctx context.Context, c ext.CommandContext, _ string) error {
	u := c.UI()
	var answers []string
	answer := func(s string) {
		answers = append(answers, s)
		u.SetWidget("go-above", []string{"GO-ABOVE-WIDGET", strings.Join(answers, " | ")})
	}
	u.SetStatus("go-acc", "GO-STATUS")
	u.SetWidget("go-above", []string{"GO-ABOVE-WIDGET"})
	ext.SetWidgetAt(u, "go-below", []string{"GO-BELOW-WIDGET"}, ext.WidgetBelowEditor)

	fruit, _ := u.Select(ctx, "Pick a fruit", []string{"apple", "banana", "cherry"})
	answer("picked=" + fruit)

	cctx, cancel := context.WithTimeout(ctx, ConfirmWait)
	ok := u.Confirm(cctx, "Deploy now?", "This waits 1.5 seconds for an answer.")
	cancel()
	answer(fmt.Sprintf("confirm=%v", ok))

	comp := func(title string) ext.ComponentFactory {
		return func(h ext.ComponentHandle) ext.Component { return &counter{h: h, title: title} }
	}
	v, _ := ext.Custom(ctx, u, comp("GO-COUNTER"), ext.CustomOptions{})
	answer(fmt.Sprintf("counter=%v", v))

	v, _ = ext.Custom(ctx, u, comp("GO-OVERLAY"), ext.CustomOptions{Overlay: true, OverlayOptions: &ext.OverlayOptions{
		Anchor: "top-left", Width: "34", Margin: ext.Margin{Top: 1, Right: 1, Bottom: 1, Left: 1},
		Visible: func(columns, _ int) bool { return columns >= 60 },
	}})
	answer(fmt.Sprintf("overlay=%v", v))

	ext.SetFooterComponent(u, func(ext.ComponentHandle) ext.Component {
		return footer{ui: u, sess: c.SessionManager}
	})
	return nil
}
