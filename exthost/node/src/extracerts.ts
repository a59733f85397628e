// NODE_EXTRA_CA_CERTS, loaded on first use. Node 20 reads that file and builds its whole root
// certificate store while it starts (about 75 ms of CPU for a system bundle, more than the rest
// of the host's start-up), whether or not anything opens a TLS connection. The core therefore
// starts the host with the variable renamed to ATOMIC_NODE_EXTRA_CA_CERTS (exthost/node/node.go),
// and this module gives it back its meaning: every TLS context made without a `ca` of its own trusts
// the file's certificates as well as Node's bundled roots, as Node's own start-up loading does,
// and the variable is restored in process.env so the extensions' child processes get it as before.

import fs = require("node:fs");
import type { SecureContext, SecureContextOptions } from "node:tls";

type TLS = typeof import("node:tls");

const DEFERRED = "ATOMIC_NODE_EXTRA_CA_CERTS";

const file = process.env[DEFERRED];
if (file !== undefined) {
	delete process.env[DEFERRED];
	if (file !== "") {
		process.env.NODE_EXTRA_CA_CERTS = file;
		installExtraCerts(file);
	}
}

/** pemBody is a PEM certificate's base64 body without its armour and line breaks. */
function pemBody(pem: string): string {
	return pem.replace(/-----[^-]+-----|\s+/g, "");
}

/**
 * extraCertificates reads the PEM certificates of file that Node's bundled roots lack (adding one
 * the store holds already changes nothing, and each is parsed again for every context). A file
 * that cannot be read is reported once as Node reports it, and trusted for nothing.
 */
function extraCertificates(tls: TLS, file: string): string[] {
	let text: string;
	try {
		text = fs.readFileSync(file, "latin1");
	} catch (err) {
		process.emitWarning(`Ignoring extra certs from \`${file}\`, load failed: ${(err as Error).message}`);
		return [];
	}
	const roots = new Set(tls.rootCertificates.map(pemBody));
	const pems = text.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
	return pems.filter((pem) => !roots.has(pemBody(pem)));
}

/** installExtraCerts makes every default-trust TLS context trust file's certificates too. */
function installExtraCerts(file: string): void {
	// The module object itself (an import would give a copy): its createSecureContext is
	// replaced. It is loaded only when there is a file to trust.
	const tls: TLS = require("node:tls");
	const create = tls.createSecureContext;
	let extra: string[] | undefined;
	// https, fetch (undici), http2, tls.connect and TLS servers all make their contexts through
	// the module's createSecureContext property.
	tls.createSecureContext = function createSecureContext(options?: SecureContextOptions): SecureContext {
		const ctx = create.call(this, options);
		if (!options?.ca) {
			extra ??= extraCertificates(tls, file);
			const native = (ctx as any).context;
			for (const pem of extra) native.addCACert(pem);
		}
		return ctx;
	};
}
