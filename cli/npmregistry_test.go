package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// npmRegistry is a tiny npm registry over loopback for the package scripts: it serves the
// packument of each package (GET /<name>, scoped names escaped) and the tarballs, built in
// memory from fixture directories with the "package/" prefix npm pack uses.
type npmRegistry struct {
	srv *httptest.Server

	mu       sync.Mutex
	packs    map[string]map[string]npmVersion // name -> version -> published version
	tarballs map[string][]byte                // URL path -> .tgz
}

type npmVersion struct {
	manifest map[string]any
	path     string // tarball URL path
}

// cmdNpmRegistry is `npm-registry <dir>...`: (re)publish the package directories in one local
// registry (started on first use) and point npm at it with npm_config_registry. A later call
// replaces what is published, so a script can publish a new version and run `atomic update`.
func cmdNpmRegistry(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: npm-registry <package-dir>...")
	}
	st := state(ts)
	if st.npm == nil {
		r := &npmRegistry{}
		r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
		st.npm = r
		ts.Defer(r.srv.Close)
		ts.Setenv("npm_config_registry", r.srv.URL+"/")
		ts.Setenv("npm_config_cache", ts.MkAbs(".npm-cache"))
	}
	packs := map[string]map[string]npmVersion{}
	tarballs := map[string][]byte{}
	for _, dir := range args {
		dir = ts.MkAbs(dir)
		b, err := os.ReadFile(filepath.Join(dir, "package.json"))
		ts.Check(err)
		var manifest map[string]any
		ts.Check(json.Unmarshal(b, &manifest))
		name, _ := manifest["name"].(string)
		version, _ := manifest["version"].(string)
		if name == "" || version == "" {
			ts.Fatalf("%s/package.json: name and version are required", dir)
		}
		tgz, err := packDir(dir)
		ts.Check(err)
		base := name[strings.LastIndex(name, "/")+1:]
		path := "/-/" + base + "-" + version + ".tgz"
		tarballs[path] = tgz
		sum512 := sha512.Sum512(tgz)
		sum1 := sha1.Sum(tgz)
		manifest["dist"] = map[string]any{
			"tarball":   st.npm.srv.URL + path,
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]),
			"shasum":    hex.EncodeToString(sum1[:]),
		}
		if packs[name] == nil {
			packs[name] = map[string]npmVersion{}
		}
		packs[name][version] = npmVersion{manifest: manifest, path: path}
	}
	st.npm.mu.Lock()
	st.npm.packs, st.npm.tarballs = packs, tarballs
	st.npm.mu.Unlock()
}

func (r *npmRegistry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if tgz, ok := r.tarballs[req.URL.Path]; ok {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(tgz)
		return
	}
	name, err := url.PathUnescape(strings.TrimPrefix(req.URL.EscapedPath(), "/"))
	versions, ok := r.packs[name]
	if err != nil || !ok {
		http.Error(w, `{"error":"Not found"}`, http.StatusNotFound)
		return
	}
	doc := map[string]any{"name": name, "versions": map[string]any{}}
	latest := ""
	for v, pv := range versions {
		doc["versions"].(map[string]any)[v] = pv.manifest
		if v > latest { // the fixtures' versions compare as strings
			latest = v
		}
	}
	doc["dist-tags"] = map[string]string{"latest": latest}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(doc)
}

// packDir returns dir as an npm tarball: every regular file under "package/".
func packDir(dir string) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: "package/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(b)), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err = tw.Write(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
