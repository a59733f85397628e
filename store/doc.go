// Package store persists sessions: the version 3 JSONL session tree of pi
// (../shared/spec/session-format.md), read and written byte-compatibly with pi 0.73.1.
//
// A session file is a header line followed by one entry per line; entries form a tree through
// parentId and the leaf is the current position. Session (pi's SessionManager) loads, migrates
// (v1, v2 → v3), appends with pi's lazy first write and crash-safe single-line appends, navigates
// the tree and builds the LLM context. List, ListAll, ContinueRecent and FindSession find
// session files; DefaultSessionDir and EncodeCwd name the per-project directories.
//
// Loading scans each line once with a validating scanner (scan.go), keeps every line and every
// message body as raw bytes of the file buffer, and decodes a message only when its entry is
// handed out or needed for the context. Files of several MB are parsed in parallel chunks.
//
// Byte compatibility. Entries this package creates are written in pi's member order, and
// re-encoding any line of the recorded pi fixtures gives the same bytes (TestFixtureRoundTrip).
// Lines read from a file are written back as read whenever they are copied (ForkFrom,
// CreateBranchedSession, migration of untouched entries). Re-encoding can differ from the input
// only in these cases, all absent from pi's own output:
//   - members this package does not model move after the modelled ones (entry level: in file
//     order; inside a message: sorted, and unknown members of content blocks are dropped, both
//     by llm.Message);
//   - numbers of integer fields are written as integers (tokensBefore 1.0 → 1);
//   - invalid UTF-8 becomes U+FFFD, and U+2028/U+2029 are written escaped by
//     llm.AppendJSONString where JSON.stringify writes them raw;
//   - a compaction without firstKeptEntryId gains "firstKeptEntryId":null.
//
// Entries of unknown types, and known entries whose members have unexpected JSON types, are
// opaque: kept and written back verbatim, part of the tree, ignored for context.
//
// One writer per file: a Session that may write holds an OS lock on <file>.lock from Open (or a
// new session's first write) until Close, so a second process gets a *LockedError naming the
// holder instead of forking or overwriting the file; readers (List, OpenReadOnly) take no lock
// (lock.go). Loading repairs in memory what would otherwise lose or repeat history: the leaf is
// the last entry that has an id, and a parentId cycle is broken at its first entry
// (LoadWarnings).
//
// store imports llm and compact (the transcript grammar of verbatim compactions), nothing else
// of atomic. A Session is safe for concurrent use: one mutex
// guards its state; the entries it hands out are shared and read-only.
package store
