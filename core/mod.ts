/**
 * The core layer, one namespace per area: the agent loop, custom commands, configuration,
 * context maintenance, memory, permissions, `@` references, the session store and the vision
 * fallback. Importing it has no side effects.
 *
 * @module
 */
export * as agent from "./agent/mod.ts";
export * as commands from "./commands/mod.ts";
export * as config from "./config/mod.ts";
export * as context from "./context/mod.ts";
export * as memory from "./memory/mod.ts";
export * as permission from "./permission/mod.ts";
export * as references from "./references/mod.ts";
export * as store from "./store/mod.ts";
export * as vision from "./vision/mod.ts";
