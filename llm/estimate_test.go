package llm

import (
	"strings"
	"testing"
)

func TestEstimateTokensCountsImagesAtAFixedSize(t *testing.T) {
	big := strings.Repeat("A", 4<<20) // a 4 MiB base64 image
	m := UserText("look", []Content{Image(big, "image/png"), Image("AAAA", "image/png")}, 1)
	got := EstimateTokens(&m)
	text := UserText("look", nil, 1)
	base := EstimateTokens(&text)
	if got < 2*ImageTokens || got > 2*ImageTokens+base+50 {
		t.Fatalf("estimate %d, want about 2×%d plus the text's %d", got, ImageTokens, base)
	}
	if m.Content[1].Data != big {
		t.Fatal("EstimateTokens modified the message")
	}
}
