package node

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/atomic-cli/atomic/ext/host"
	"github.com/atomic-cli/atomic/ext/protocol"
)

// dist holds the host (host.js), the package families it loads on first use (vendor-*.js) and
// SHA256SUMS (the SHA-256 of each, in sha256sum's format), all written by build.mjs. Nothing here
// reads or hashes the scripts on a start where they are on disk already: their directory is named
// by the hash of SHA256SUMS, and a file is written only when it is missing there.
//
//go:embed dist
var dist embed.FS

// sumsFile is dist's list of SHA-256 sums.
const sumsFile = "SHA256SUMS"

// distFiles returns the names of the scripts of dist/, in name order.
func distFiles() []string {
	ents, _ := dist.ReadDir("dist")
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Name() != sumsFile {
			names = append(names, e.Name())
		}
	}
	return names
}

// distHash identifies the content of dist/: the SHA-256 of its SHA256SUMS, hex.
var distHash = sync.OnceValue(func() string {
	b, err := dist.ReadFile("dist/" + sumsFile)
	if err != nil {
		panic("exthost/node: the embedded dist/ lacks " + sumsFile)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
})

// MinNodeMajor is the oldest Node.js major version the host runs on.
const MinNodeMajor = 20

// bootstrap loads host.js through a V8 code cache kept next to it (host.js.cache), which saves
// most of the bundle's compile time on every start after the first. When there is no usable
// cache, the host writes one when it exits (globalThis.__atomicCodeCache).
// globalThis.__atomicImport is this script's import(), which code compiled by vm.Script lacks:
// the host loads extensions transpiled to ES modules with it.
const bootstrap = `globalThis.__atomicImport=(u)=>import(u);const fs=require("fs"),path=require("path"),vm=require("vm"),M=require("module");` +
	`const file=process.argv[1],cache=file+".cache",src=fs.readFileSync(file,"utf8");` +
	`let data;try{data=fs.readFileSync(cache)}catch{}` +
	`const script=new vm.Script(M.wrap(src),{filename:file,cachedData:data});` +
	`if(!data||script.cachedDataRejected)globalThis.__atomicCodeCache=()=>{try{const t=cache+"."+process.pid;fs.writeFileSync(t,script.createCachedData());fs.renameSync(t,cache)}catch{}};` +
	`const m=new M(file,null);m.filename=file;m.paths=M._nodeModulePaths(path.dirname(file));` +
	`script.runInThisContext().call(m.exports,m.exports,M.createRequire(file),m,file,path.dirname(file));`

// Bundle returns the embedded host bundle (dist/host.js; the vendor files it loads are apart).
func Bundle() []byte {
	b, _ := dist.ReadFile("dist/host.js")
	return b
}

// NodePath returns the node executable: $ATOMIC_NODE when set, else node on PATH.
func NodePath(getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if p := getenv("ATOMIC_NODE"); p != "" {
		return p, nil
	}
	p, err := exec.LookPath("node")
	if err != nil {
		return "", fmt.Errorf("TypeScript extensions need Node.js %d or newer, and node was not found on PATH (install it, or set ATOMIC_NODE to its path)", MinNodeMajor)
	}
	return p, nil
}

// WriteBundle writes the host bundle under cacheDir (content-addressed: atomic/exthost-<hash>/,
// host.js and the vendor-*.js files it loads) unless it is there already, and returns the path of
// host.js. cacheDir "" is the user cache directory, else the temporary directory.
func WriteBundle(cacheDir string) (string, error) {
	if cacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cacheDir = d
		} else {
			cacheDir = os.TempDir()
		}
	}
	dir := filepath.Join(cacheDir, "atomic", "exthost-"+distHash()[:16])
	for _, name := range distFiles() {
		if err := writeDistFile(dir, name); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "host.js"), nil
}

// writeDistFile writes dist/name into dir unless a file of its size is there (the directory is
// named by the content's hash); a temporary file renamed, as hosts may start at once.
func writeDistFile(dir, name string) error {
	src, err := dist.Open("dist/" + name)
	if err != nil {
		return fmt.Errorf("extension host: the embedded dist/ lacks %s", name)
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return fmt.Errorf("extension host: %w", err)
	}
	file := filepath.Join(dir, name)
	if have, err := os.Stat(file); err == nil && have.Size() == fi.Size() {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("extension host: %w", err)
	}
	tmp, err := os.CreateTemp(dir, "tmp-*.js")
	if err != nil {
		return fmt.Errorf("extension host: %w", err)
	}
	_, err = io.Copy(tmp, src)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), file)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("extension host: writing %s: %w", file, err)
	}
	return nil
}

// Options configure New beyond the supervisor's own options.
type Options struct {
	// Getenv reads ATOMIC_NODE; nil is os.Getenv.
	Getenv func(string) string
	// CacheDir is where the host bundle is written (see WriteBundle).
	CacheDir string
	// TranspileCache is the directory of cached transpile results (CachedTranspiler); ""
	// transpiles every extension on every start.
	TranspileCache string
}

// New returns a supervisor of the Node host for the TypeScript (or JavaScript) extensions at
// paths. o's Name, Command, Prepare and CheckInit are filled in; the rest is passed through.
func New(paths []string, o host.Options, no Options) *host.Supervisor {
	o.Name = "node"
	o.Command = func() ([]string, error) {
		nodePath, err := NodePath(no.Getenv)
		if err != nil {
			return nil, err
		}
		file, err := WriteBundle(no.CacheDir)
		if err != nil {
			return nil, err
		}
		return []string{nodePath, "-e", bootstrap, file}, nil
	}
	o.Prepare = CachedTranspiler(no.TranspileCache)
	o.CheckInit = checkRuntime
	if o.Env == nil {
		o.Env = os.Environ()
	}
	o.Env = deferExtraCACerts(o.Env)
	return host.New(o, paths)
}

// deferredExtraCACerts is the name NODE_EXTRA_CA_CERTS has in the host's environment.
const deferredExtraCACerts = "ATOMIC_NODE_EXTRA_CA_CERTS"

// deferExtraCACerts returns env with NODE_EXTRA_CA_CERTS renamed to ATOMIC_NODE_EXTRA_CA_CERTS.
// Node 20 loads that file and builds its root certificate store while it starts, about 75 ms of
// CPU for a system bundle, even when nothing uses TLS; the host (src/extracerts.ts) restores the
// variable and trusts the file's certificates from the first TLS connection on. env is not
// modified; without the variable it is returned as is.
func deferExtraCACerts(env []string) []string {
	const name = "NODE_EXTRA_CA_CERTS="
	k := -1
	for i, kv := range env {
		if strings.HasPrefix(kv, name) {
			k = i
		}
	}
	if k < 0 {
		return env
	}
	out := make([]string, 0, len(env))
	for i, kv := range env {
		switch {
		case strings.HasPrefix(kv, deferredExtraCACerts+"="):
			// A stale value of ours, inherited from a host's child: the real variable wins.
		case i == k:
			out = append(out, deferredExtraCACerts+"="+kv[len(name):])
		case !strings.HasPrefix(kv, name):
			out = append(out, kv)
		}
	}
	return out
}

// checkRuntime refuses a Node.js older than MinNodeMajor.
func checkRuntime(res protocol.InitializeResult) error {
	v, ok := strings.CutPrefix(res.Runtime, "node v")
	if !ok {
		return nil
	}
	major, err := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	if err != nil {
		return nil
	}
	if major < MinNodeMajor {
		return errors.New("TypeScript extensions need Node.js " + strconv.Itoa(MinNodeMajor) + " or newer; found " + strings.TrimPrefix(res.Runtime, "node "))
	}
	return nil
}
