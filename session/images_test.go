package session

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
	"github.com/atomic-cli/atomic/store"
	"github.com/atomic-cli/atomic/tool"
)

// screenshotTool returns one wide PNG image, as an extension's tool might.
type screenshotTool struct{ data string }

func (screenshotTool) Name() string                { return "screenshot" }
func (screenshotTool) Description() string         { return "take a screenshot" }
func (screenshotTool) Parameters() json.RawMessage { return nil }
func (t screenshotTool) Execute(context.Context, tool.Call, func(tool.Result)) (tool.Result, error) {
	return tool.Result{Content: []llm.Content{llm.Text("shot"), llm.Image(t.data, "image/png")}}, nil
}

// Images returned by any tool are fitted into the provider limits after tool_result (tools.md
// §13), so the request and the session carry the resized image.
func TestToolResultImagesAreResized(t *testing.T) {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3000, 150))); err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{ToolCalls: []fakellm.ToolCall{{Name: "screenshot"}}},
		{Text: "seen"},
	}})
	defer srv.Close()
	dir := t.TempDir()
	st, err := store.Create(dir, filepath.Join(dir, "sessions"), store.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := retryModel(srv, "primary")
	m.Input = []string{"text", "image"}
	s, err := New(Options{Store: st, Model: m, Tools: []tool.Tool{screenshotTool{base64.StdEncoding.EncodeToString(b.Bytes())}}, ImageResizer: tool.StdImageResizer{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Prompt(context.Background(), "look", nil); err != nil {
		t.Fatal(err)
	}
	var img *llm.Content
	for _, msg := range s.Messages() {
		for i, c := range msg.Content {
			if msg.Role == llm.RoleToolResult && c.Type == llm.ContentImage {
				img = &msg.Content[i]
			}
		}
	}
	if img == nil {
		t.Fatal("no image in the tool result")
	}
	raw, _ := base64.StdEncoding.DecodeString(img.Data)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 2000 || cfg.Height != 100 {
		t.Fatalf("tool result image %dx%d (%v), want 2000x100", cfg.Width, cfg.Height, err)
	}
}
