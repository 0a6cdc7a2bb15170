/**
 * Release builds: `deno task bundle` (the form `deno task install` puts on the PATH),
 * `deno task compile` (self-contained binaries for six targets) and `deno task release` (all
 * six with their checksums and release notes).
 *
 * @module
 */
export { buildBundle, BUNDLE_DIR, bundleEntry, installArgs } from "./bundle.ts";
export {
  binaryName,
  compileArgs,
  type CompileOptions,
  compileTargets,
  describeCommit,
  describeVersion,
  entrySource,
  ROOT,
  RUN_FLAGS,
  TARGETS,
  unknownTargets,
} from "./compile.ts";
export {
  changelogSection,
  denoDir,
  DENORT_URL,
  denortProblem,
  type DenortSource,
  denortSource,
  release,
  type ReleaseOptions,
  type ReleaseResult,
  sha256File,
  writeChecksums,
} from "./release.ts";
