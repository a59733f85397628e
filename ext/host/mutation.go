package host

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/atomic-cli/atomic/ext/protocol"
	"github.com/atomic-cli/atomic/tool"
)

// The file mutation queue for hosts (seed 004, withFileMutationQueue): a TypeScript tool's
// mutation waits in the same per-file queue as atomic's edit and write (tool.
// DefaultMutationQueue, keyed by the real path), holding the turn from mutation.acquire to
// mutation.release.

var (
	leaseSeq atomic.Int64
	leases   sync.Map // token -> chan struct{} (closed by mutation.release)
)

// mutationAcquire serves mutation.acquire: it waits for the file's turn (ended early when the
// host goes away) and answers a token; the turn passes on at mutation.release or when the host
// goes away.
func mutationAcquire(_ *Supervisor, p *process, params json.RawMessage) (any, error) {
	var a protocol.MutationParams
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(a.Path) {
		return nil, protocol.Errorf(protocol.CodeInvalidParams, "mutation.acquire: the path %q is not absolute", a.Path)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-p.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	release, err := tool.DefaultMutationQueue.Acquire(ctx, a.Path)
	if err != nil {
		return nil, protocol.Errorf(protocol.CodeHandlerFailed, "mutation.acquire %s: %v", a.Path, err)
	}
	token := strconv.FormatInt(leaseSeq.Add(1), 10)
	done := make(chan struct{})
	leases.Store(token, done)
	go func() {
		select {
		case <-done:
		case <-p.done:
			leases.Delete(token)
		}
		release()
	}()
	return protocol.MutationLease{Token: token}, nil
}

// mutationRelease serves mutation.release: the lease's file turn passes on.
func mutationRelease(_ *Supervisor, _ *process, params json.RawMessage) (any, error) {
	var a protocol.MutationLease
	if err := jsonUnmarshal(params, &a); err != nil {
		return nil, err
	}
	if done, ok := leases.LoadAndDelete(a.Token); ok {
		close(done.(chan struct{}))
	}
	return nil, nil
}
