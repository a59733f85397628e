// Node modules the host needs only on some paths (spawning a process, hashing), loaded on their
// first use: each costs start-up time (node:child_process brings node:dgram and node:net's
// relatives, node:crypto its key and cipher modules), and most extensions never reach them.

/** childProcess returns node:child_process, loading it the first time. */
export const childProcess = (): typeof import("node:child_process") => require("node:child_process");

/** nodeCrypto returns node:crypto, loading it the first time. */
export const nodeCrypto = (): typeof import("node:crypto") => require("node:crypto");
