/**
 * Where Reasonix keeps its per-user files.
 *
 * @module
 */
import { posix, win32 } from "node:path";
import { ConfigError } from "./errors.ts";

/** Anything environment-like: `Deno.env` or a plain record. */
export type EnvSource =
  | { get(key: string): string | undefined }
  | Record<string, string | undefined>;

/** Reads one variable from either environment shape; empty values count as unset. */
export function envValue(env: EnvSource, key: string): string | undefined {
  const value = typeof env.get === "function"
    ? (env as { get(key: string): string | undefined }).get(key)
    : (env as Record<string, string | undefined>)[key];
  return value === undefined || value === "" ? undefined : value;
}

/**
 * The Reasonix home directory: `REASONIX_HOME` when set; on Windows `%APPDATA%\reasonix`;
 * elsewhere `~/.reasonix`.
 */
export function reasonixHome(env: EnvSource, platform: string = Deno.build.os): string {
  const explicit = envValue(env, "REASONIX_HOME");
  if (explicit) return explicit;
  if (platform === "windows") {
    const appData = envValue(env, "APPDATA");
    if (appData) return win32.join(appData, "reasonix");
    const profile = envValue(env, "USERPROFILE");
    if (profile) return win32.join(profile, "AppData", "Roaming", "reasonix");
  } else {
    const home = envValue(env, "HOME") ?? envValue(env, "USERPROFILE");
    if (home) return posix.join(home, ".reasonix");
  }
  throw new ConfigError({
    problem: "cannot find the Reasonix home directory: " +
      (platform === "windows" ? "APPDATA and USERPROFILE are not set" : "HOME is not set"),
    fix: "set REASONIX_HOME to the directory that should hold config.toml and .env",
  });
}
