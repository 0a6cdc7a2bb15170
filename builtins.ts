/**
 * Registers the built-in provider kinds and tools. Import it once before `createProvider`
 * or `builtinTools()`.
 *
 * @module
 */
import "./providers/builtin_kinds.ts";
import "./tools/builtin/mod.ts";
