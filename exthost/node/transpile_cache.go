package node

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// TranspileCacheEntries bounds the transpile cache: after a write, the oldest entries beyond it
// are removed.
const TranspileCacheEntries = 256

// maxCachedDeps bounds how many dependency files one cache entry may name (a build that bundled
// more is not cached: checking them would cost what transpiling does).
const maxCachedDeps = 512

// maxCacheEntryBytes bounds the size of a cache entry read back.
const maxCacheEntryBytes = 64 << 20

// cachedDep is one file a transpiled module depends on, with the SHA-256 of its content.
type cachedDep struct {
	Path string `json:"path"`
	Hash string `json:"sha256"`
}

// cacheEntry is one cached transpile result.
type cacheEntry struct {
	Deps []cachedDep `json:"deps"`
	Code string      `json:"code"`
}

// CachedTranspiler returns Transpile with its results kept in dir (one JSON file per extension
// path and host bundle): a result is reused while every file it was built from (the sources it
// bundled, the package files and package.json files its imports resolved to) has the same
// content hash, else the extension is transpiled again and the entry replaced. At most
// TranspileCacheEntries entries are kept. A cache that cannot be read or written is skipped,
// never an error. dir "" returns Transpile.
func CachedTranspiler(dir string) func(path string) (string, error) {
	if dir == "" {
		return Transpile
	}
	return func(path string) (string, error) {
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(append(append([]byte(abs), 0), bundleHash()...))
		file := filepath.Join(dir, hex.EncodeToString(sum[:12])+".json")
		if code, ok := readCacheEntry(file); ok {
			return code, nil
		}
		code, deps, err := transpile(path)
		if err != nil {
			return "", err
		}
		writeCacheEntry(dir, file, code, deps)
		return code, nil
	}
}

// transpileVersion names the output of Transpile: changing how extensions are transpiled changes
// it, so cache entries of an older transpiler are not used.
const transpileVersion = "2: import.meta per bundled file"

// bundleHash identifies the host bundle and the transpiler in cache keys.
func bundleHash() string {
	sum := sha256.Sum256([]byte(transpileVersion + "\x00" + distHash()))
	return hex.EncodeToString(sum[:8])
}

func fileHash(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, io.LimitReader(f, maxCacheEntryBytes)); err != nil {
		return "", false
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// readCacheEntry returns the cached code of file when every dependency it names is unchanged.
func readCacheEntry(file string) (string, bool) {
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var e cacheEntry
	if err := json.NewDecoder(io.LimitReader(f, maxCacheEntryBytes)).Decode(&e); err != nil || len(e.Deps) == 0 {
		return "", false
	}
	for _, d := range e.Deps {
		if h, ok := fileHash(d.Path); !ok || h != d.Hash {
			return "", false
		}
	}
	return e.Code, true
}

// writeCacheEntry stores code with the hashes of deps in file (atomically: a temporary file
// renamed), then trims dir to TranspileCacheEntries entries.
func writeCacheEntry(dir, file, code string, deps []string) {
	sort.Strings(deps)
	e := cacheEntry{Code: code}
	for k, p := range deps {
		if k > 0 && deps[k-1] == p {
			continue
		}
		h, ok := fileHash(p)
		if !ok {
			return
		}
		e.Deps = append(e.Deps, cachedDep{Path: p, Hash: h})
	}
	if len(e.Deps) == 0 || len(e.Deps) > maxCachedDeps {
		return
	}
	b, err := json.Marshal(e)
	if err != nil || os.MkdirAll(dir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "tmp-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	trimCache(dir, TranspileCacheEntries)
}

// trimCache removes the least recently written entries of dir beyond keep.
func trimCache(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) <= keep {
		return
	}
	type aged struct {
		name string
		mod  int64
	}
	var files []aged
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, aged{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	if len(files) <= keep {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod < files[j].mod })
	for _, f := range files[:len(files)-keep] {
		// Best effort: another process may have removed it already.
		_ = os.Remove(filepath.Join(dir, f.name))
	}
}
