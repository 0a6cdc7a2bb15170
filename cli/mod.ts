/**
 * The `reasonix` command line as a function: `main` answers `--version` without loading
 * anything else, `runCli` dispatches the subcommands, each loaded lazily.
 *
 * @module
 */
export { runCli, usage } from "./app.ts";
export {
  EXIT_CANCELLED,
  EXIT_FAILURE,
  EXIT_OK,
  EXIT_TERMINATED,
  EXIT_USAGE,
} from "./exit_codes.ts";
export { main } from "./main.ts";
export { version } from "./version.ts";
