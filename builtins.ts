/**
 * Registers the built-in provider kinds and tools. Import it once before `createProvider`
 * or `builtinTools()`.
 *
 * @module
 */
import "./providers/anthropic/mod.ts";
import "./providers/openai/mod.ts";
import "./providers/replay/mod.ts";
import "./providers/responses/mod.ts";
import "./tools/builtin/mod.ts";
