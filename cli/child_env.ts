/**
 * The child environment moved under the host (`core/host/child_env.ts`), which builds every
 * tool context; this name stays for the CLI's other callers.
 *
 * @module
 */
export {
  type ChildEnv,
  childEnv,
  type ChildEnvConfig,
  withheldNames,
} from "../core/host/child_env.ts";
