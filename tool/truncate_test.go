package tool

import (
	"encoding/json"
	"strings"
	"testing"
)

func lines(n int, line string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = line
	}
	return strings.Join(parts, "\n")
}

func TestTruncateHead(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opts    TruncateOptions
		want    Truncation
	}{
		{
			name: "under limits", content: "a\nb\n",
			want: Truncation{Content: "a\nb\n", TotalLines: 3, TotalBytes: 4, OutputLines: 3, OutputBytes: 4},
		},
		{
			name: "empty is one line", content: "",
			want: Truncation{TotalLines: 1, OutputLines: 1},
		},
		{
			name: "exactly at line limit", content: "a\nb\nc", opts: TruncateOptions{MaxLines: 3},
			want: Truncation{Content: "a\nb\nc", TotalLines: 3, TotalBytes: 5, OutputLines: 3, OutputBytes: 5},
		},
		{
			name: "trailing newline counts as a line", content: "a\nb\nc\n", opts: TruncateOptions{MaxLines: 3},
			want: Truncation{Content: "a\nb\nc", Truncated: true, TruncatedBy: TruncatedByLines,
				TotalLines: 4, TotalBytes: 6, OutputLines: 3, OutputBytes: 5},
		},
		{
			name: "byte limit keeps whole lines", content: "aaaa\nbbbb\ncccc", opts: TruncateOptions{MaxBytes: 10},
			want: Truncation{Content: "aaaa\nbbbb", Truncated: true, TruncatedBy: TruncatedByBytes,
				TotalLines: 3, TotalBytes: 14, OutputLines: 2, OutputBytes: 9},
		},
		{
			name: "byte limit exactly filled", content: "aaaa\nbbbbb\ncccc", opts: TruncateOptions{MaxBytes: 10},
			want: Truncation{Content: "aaaa\nbbbbb", Truncated: true, TruncatedBy: TruncatedByBytes,
				TotalLines: 3, TotalBytes: 15, OutputLines: 2, OutputBytes: 10},
		},
		{
			name: "line cap reached within byte budget", content: "a\nb\nc\nd", opts: TruncateOptions{MaxLines: 2, MaxBytes: 3},
			want: Truncation{Content: "a\nb", Truncated: true, TruncatedBy: TruncatedByLines,
				TotalLines: 4, TotalBytes: 7, OutputLines: 2, OutputBytes: 3},
		},
		{
			name: "first line exceeds", content: "abcdefghijkl\nb", opts: TruncateOptions{MaxBytes: 10},
			want: Truncation{Truncated: true, TruncatedBy: TruncatedByBytes, FirstLineExceedsLimit: true,
				TotalLines: 2, TotalBytes: 14},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TruncateHead(tt.content, tt.opts)
			tt.want.MaxLines, tt.want.MaxBytes = tt.opts.limits()
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTruncateHeadDefaults(t *testing.T) {
	got := TruncateHead(lines(2500, "x"), TruncateOptions{})
	if got.OutputLines != DefaultMaxLines || got.TruncatedBy != TruncatedByLines || got.TotalLines != 2500 {
		t.Errorf("lines: %+v", got)
	}
	got = TruncateHead(lines(1000, strings.Repeat("y", 99)), TruncateOptions{})
	// 100 bytes per line with its newline: 512 lines take 51199 bytes.
	if got.OutputLines != 512 || got.OutputBytes != 51199 || got.TruncatedBy != TruncatedByBytes {
		t.Errorf("bytes: %+v", got)
	}
}

func TestTruncateTail(t *testing.T) {
	tests := []struct {
		name    string
		content string
		opts    TruncateOptions
		want    Truncation
	}{
		{
			name: "under limits", content: "a\nb",
			want: Truncation{Content: "a\nb", TotalLines: 2, TotalBytes: 3, OutputLines: 2, OutputBytes: 3},
		},
		{
			name: "line limit keeps the end", content: "a\nb\nc\nd", opts: TruncateOptions{MaxLines: 2},
			want: Truncation{Content: "c\nd", Truncated: true, TruncatedBy: TruncatedByLines,
				TotalLines: 4, TotalBytes: 7, OutputLines: 2, OutputBytes: 3},
		},
		{
			name: "trailing newline is the last line", content: "a\nb\nc\n", opts: TruncateOptions{MaxLines: 2},
			want: Truncation{Content: "c\n", Truncated: true, TruncatedBy: TruncatedByLines,
				TotalLines: 4, TotalBytes: 6, OutputLines: 2, OutputBytes: 2},
		},
		{
			name: "byte limit", content: "aaaa\nbbbb\ncccc", opts: TruncateOptions{MaxBytes: 10},
			want: Truncation{Content: "bbbb\ncccc", Truncated: true, TruncatedBy: TruncatedByBytes,
				TotalLines: 3, TotalBytes: 14, OutputLines: 2, OutputBytes: 9},
		},
		{
			name: "last line partial on a rune boundary", content: "a\n" + strings.Repeat("é", 6), opts: TruncateOptions{MaxBytes: 5},
			want: Truncation{Content: "éé", Truncated: true, TruncatedBy: TruncatedByBytes, LastLinePartial: true,
				TotalLines: 2, TotalBytes: 14, OutputLines: 1, OutputBytes: 4},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := TruncateTail(tt.content, tt.opts)
			tt.want.MaxLines, tt.want.MaxBytes = tt.opts.limits()
			if got != tt.want {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestTruncateLine(t *testing.T) {
	tests := []struct {
		line string
		max  int
		want string
		cut  bool
	}{
		{"short", 10, "short", false},
		{"exactly10!", 10, "exactly10!", false},
		{"0123456789abc", 10, "0123456789... [truncated]", true},
		{"ééééé", 3, "ééé... [truncated]", true},
		{strings.Repeat("x", 501), 0, strings.Repeat("x", 500) + "... [truncated]", true},
	}
	for _, tt := range tests {
		got, cut := TruncateLine(tt.line, tt.max)
		if got != tt.want || cut != tt.cut {
			t.Errorf("TruncateLine(%q, %d) = %q, %v; want %q, %v", tt.line, tt.max, got, cut, tt.want, tt.cut)
		}
	}
}

func TestFormatSize(t *testing.T) {
	tests := map[int]string{
		0: "0B", 1023: "1023B", 1024: "1.0KB", 1280: "1.3KB", 1536: "1.5KB", 51200: "50.0KB",
		1024*1024 - 1: "1024.0KB", 1024 * 1024: "1.0MB", 5 * 1024 * 1024 / 2: "2.5MB",
	}
	for n, want := range tests {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTruncationJSON(t *testing.T) {
	b, err := json.Marshal(TruncateHead("a", TruncateOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":"a","truncated":false,"truncatedBy":null,"totalLines":1,"totalBytes":1,` +
		`"outputLines":1,"outputBytes":1,"lastLinePartial":false,"firstLineExceedsLimit":false,` +
		`"maxLines":2000,"maxBytes":51200}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	b, _ = json.Marshal(TruncateTail("a\nb", TruncateOptions{MaxLines: 1}))
	if !strings.Contains(string(b), `"truncatedBy":"lines"`) {
		t.Errorf("truncatedBy: %s", b)
	}
}

func BenchmarkTruncateHead(b *testing.B) {
	content := lines(10000, strings.Repeat("z", 80))
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		TruncateHead(content, TruncateOptions{})
	}
}

func BenchmarkTruncateTail(b *testing.B) {
	content := lines(10000, strings.Repeat("z", 80))
	b.ReportAllocs()
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		TruncateTail(content, TruncateOptions{})
	}
}
