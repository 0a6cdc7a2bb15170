/**
 * `reasonix serve`: the browser front end (docs/SERVE.md).
 *
 * @module
 */
export { ServeApp, type ServeAppOptions } from "./app.ts";
export { hashPasswordCommand, type RunningServe, serveCommand, startServe } from "./command.ts";
export type { ServeCommandOptions } from "./options.ts";
export { ServeError } from "./errors.ts";
export { hashPassword, PBKDF2_ITERATIONS, verifyPassword } from "./password.ts";
export { type AuthMode, DEFAULT_PORT, type ServeSettings, serveSettings } from "./settings.ts";
