/**
 * Release builds: `deno task bundle` (the form `deno task install` puts on the PATH) and
 * `deno task compile` (self-contained binaries for six targets).
 *
 * @module
 */
export { buildBundle, BUNDLE_DIR, bundleEntry, installArgs } from "./bundle.ts";
export { describeVersion, entrySource, RUN_FLAGS, TARGETS } from "./compile.ts";
