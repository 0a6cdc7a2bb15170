/**
 * The tool layer: the `Tool` interface, the registry, `defineTool`, canonical schemas and the
 * `use_capability` proxy. Built-in tools live in `builtin/` and register when imported.
 *
 * @module
 */
export type * from "./types.ts";
export { builtinTools, registerBuiltinTool, ToolRegistry } from "./registry.ts";
export { defineTool, jsonSchemaOf, type ToolInput, type ToolSpec } from "./define.ts";
export { canonicalize, canonicalJson } from "./canonical.ts";
export {
  type Capability,
  CapabilityHub,
  type CapabilitySource,
  useCapabilityTool,
} from "./capability.ts";
export { directShell } from "./shell.ts";
export type * from "./workspace/types.ts";
export {
  FsError,
  type FsErrorCode,
  fsErrorCode,
  isNotFound,
  isPermissionDenied,
  LocalWorkspace,
  localWorkspace,
} from "./workspace/mod.ts";
