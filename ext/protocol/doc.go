// Package protocol is the wire format of atomic's out-of-process extension protocol
// (docs/extension-protocol.md): JSON-RPC 2.0 messages, one per line, and the parameter and result
// types of every method the core and an extension host exchange.
//
// Every type here has explicit json tags with the camelCase names of the document; a field
// renamed here is a protocol change (bump Version).
//
// protocol imports only the standard library. Its Conn is safe for concurrent writers; reads
// belong to one goroutine.
package protocol
