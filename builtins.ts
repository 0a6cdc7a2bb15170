/**
 * Registers the built-in provider kinds and tools. Import it once before `createProvider`
 * or `builtinTools()`.
 *
 * @module
 */
import "./providers/openai/mod.ts";
import "./tools/builtin/mod.ts";
