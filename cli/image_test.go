package cli

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atomic-cli/atomic/internal/fakellm"
	"github.com/atomic-cli/atomic/llm"
)

// An attached image over 2000 px is sent resized (images.autoResize, on by default); a provider
// that still refuses an image gets the request once more with a placeholder (issue 10 item 6).
func TestAttachedImageIsResizedAndRejectedImageReplaced(t *testing.T) {
	bin, err := exec.LookPath("atomic")
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.New(fakellm.Script{Turns: []fakellm.Turn{
		{Error: &fakellm.APIError{Status: 400, Type: "invalid_request_error", Message: "messages.0.content.1.image.source.base64: image dimensions exceed max allowed size"}},
		{Text: "Seen."},
	}})
	defer srv.Close()
	tmp := t.TempDir()
	proj, agent, home := filepath.Join(tmp, "proj"), filepath.Join(tmp, "agent"), filepath.Join(tmp, "home")
	for _, d := range []string{proj, agent, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	models := `{"providers": {"fake": {"baseUrl": "` + srv.URL() + `", "api": "` + llm.APIAnthropicMessages + `", "apiKey": "k",
		"models": [{"id": "fake-model", "input": ["text", "image"], "contextWindow": 100000, "maxTokens": 4096}]}}}`
	if err := os.WriteFile(filepath.Join(agent, "models.json"), []byte(models), 0o644); err != nil {
		t.Fatal(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, 2500, 100))
	for x := 0; x < 2500; x++ {
		for y := 0; y < 100; y++ {
			img.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), 0, 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "wide.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "--no-session", "-p", "@wide.png", "what is this?")
	cmd.Dir = proj
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "ATOMIC_CODING_AGENT_DIR=" + agent}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "Seen." {
		t.Fatalf("atomic: %v\n%s", err, out)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests %d, want 2", len(reqs))
	}
	// Request 0 carries the image resized to 2000x80.
	msgs := reqs[0].JSON["messages"].([]any)
	var data string
	for _, c := range msgs[0].(map[string]any)["content"].([]any) {
		if c.(map[string]any)["type"] == "image" {
			data = c.(map[string]any)["source"].(map[string]any)["data"].(string)
		}
	}
	raw, _ := base64.StdEncoding.DecodeString(data)
	cfg, _, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil || cfg.Width != 2000 || cfg.Height != 80 {
		t.Fatalf("sent image %dx%d (%v), want 2000x80: %.300s", cfg.Width, cfg.Height, err, reqs[0].Body)
	}
	// Request 1 has the placeholder instead.
	if strings.Contains(string(reqs[1].Body), `"type":"image"`) || !strings.Contains(string(reqs[1].Body), "[image omitted: the provider rejected it") {
		t.Fatalf("retry: %.600s", reqs[1].Body)
	}
}
