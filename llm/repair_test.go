package llm

import (
	"strings"
	"testing"
)

func TestSanitizeToolCallID(t *testing.T) {
	long := strings.Repeat("a", 70)
	tests := []struct {
		id     string
		maxLen int
		want   string
	}{
		{"toolu_01AbC-x", 64, "toolu_01AbC-x"},
		{"call_1|fc_2", 64, "call_1_fc_2"},
		{"a.b c", 64, "a_b_c"},
		{"é", 64, "__"}, // bytes, not characters, are replaced
		{long, 64, long[:64]},
		{long[:40] + "|x", 40, long[:40]},
		{"", 40, ""},
	}
	for _, tt := range tests {
		if got := SanitizeToolCallID(tt.id, tt.maxLen); got != tt.want {
			t.Errorf("SanitizeToolCallID(%q, %d) = %q, want %q", tt.id, tt.maxLen, got, tt.want)
		}
	}
}
