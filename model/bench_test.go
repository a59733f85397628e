package model

import "testing"

// BenchmarkLoad measures start-up: Load of an agent dir without models.json and auth.json, and of
// one with a small models.json and auth.json. The catalog is not built.
func BenchmarkLoad(b *testing.B) {
	b.Run("empty", func(b *testing.B) {
		dir := b.TempDir()
		b.ReportAllocs()
		for b.Loop() {
			Load(dir)
		}
	})
	b.Run("files", func(b *testing.B) {
		dir := agentDir(b, map[string]string{
			ModelsFile: resolveModelsJSON,
			AuthFile:   `{"anthropic":{"type":"api_key","key":"$ANTHROPIC_KEY"}}`,
		})
		b.ReportAllocs()
		for b.Loop() {
			Load(dir)
		}
	})
}

// BenchmarkLoadAll adds the first query, which builds and merges the catalog.
func BenchmarkLoadAll(b *testing.B) {
	dir := agentDir(b, map[string]string{ModelsFile: resolveModelsJSON})
	b.ReportAllocs()
	for b.Loop() {
		r, _ := Load(dir)
		r.All()
	}
}

func BenchmarkResolve(b *testing.B) {
	r, _ := Load(agentDir(b, map[string]string{ModelsFile: resolveModelsJSON}))
	r.All()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := r.Resolve("sonnet:high", ""); err != nil {
			b.Fatal(err)
		}
	}
}
