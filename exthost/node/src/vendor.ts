// The packages the host serves to extensions (typebox, @sinclair/typebox, pi-tui) live in files
// of their own next to host.js (dist/vendor-<family>.js, see build.mjs), loaded when an extension
// or the host first requires one of their modules. Like host.js (node.go's bootstrap), each is
// compiled with a V8 code cache kept next to it (<file>.cache), written at exit by the first host
// that had none.

import fs = require("node:fs");
import Module = require("node:module");
import path = require("node:path");
import vm = require("node:vm");

/** A vendor file's exports: by import name, a function returning that module. */
type Family = Record<string, () => unknown>;

const families = new Map<string, Family>();

/** vendor returns the module name of family, loading the family's file the first time. */
export function vendor(family: string, name: string): unknown {
	let f = families.get(family);
	if (!f) {
		f = load(path.join(__dirname, `vendor-${family}.js`)) as Family;
		families.set(family, f);
	}
	const get = f[name];
	if (typeof get !== "function") throw new Error(`atomic extension host: ${name} is not in vendor-${family}.js`);
	return get();
}

/** load runs the CommonJS file at file as Node's loader would, through its code cache. */
function load(file: string): unknown {
	const src = fs.readFileSync(file, "utf8");
	const cacheFile = `${file}.cache`;
	let data: Buffer | undefined;
	try {
		data = fs.readFileSync(cacheFile);
	} catch {
		// No cache yet: this host writes it.
	}
	const script = new vm.Script(Module.wrap(src), { filename: file, cachedData: data });
	if (!data || script.cachedDataRejected) process.once("exit", () => writeCache(script, cacheFile));
	const m = new Module(file, module);
	m.filename = file;
	m.paths = (Module as any)._nodeModulePaths(path.dirname(file));
	const dirname = path.dirname(file);
	script.runInThisContext().call(m.exports, m.exports, Module.createRequire(file), m, file, dirname);
	m.loaded = true;
	return m.exports;
}

/** writeCache stores script's code cache at file (a temporary file renamed: hosts may race). */
function writeCache(script: vm.Script, file: string): void {
	const tmp = `${file}.${process.pid}`;
	try {
		fs.writeFileSync(tmp, script.createCachedData());
		fs.renameSync(tmp, file);
	} catch {
		// Best effort: the next host tries again.
		try {
			fs.unlinkSync(tmp);
		} catch {}
	}
}
