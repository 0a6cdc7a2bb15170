/**
 * The one list of built-in provider kinds: importing it registers `anthropic`, `openai`,
 * `replay` and `responses`. Each kind registers itself in its own `register.ts`; `builtins.ts`
 * and the CLI commands that build providers import this list instead of naming the kinds.
 *
 * @module
 */
import "./anthropic/register.ts";
import "./openai/register.ts";
import "./replay/register.ts";
import "./responses/register.ts";
