/**
 * `[serve]` and the `serve` flags, checked into the settings the server runs with. The rules
 * that keep it secure by default live here: no authentication only on a loopback address,
 * password mode only with a stored hash, origins given as full origins.
 *
 * @module
 */
import type { ServeConfig } from "../../core/config/types.ts";
import { ServeError } from "./errors.ts";

/** How a browser proves it may use the server. */
export type AuthMode = "none" | "token" | "password";

/** The port `reasonix serve` listens on unless told otherwise. */
export const DEFAULT_PORT = 8788;

/** What the server runs with. */
export interface ServeSettings {
  authMode: AuthMode;
  /** The fixed token of `[serve] token`; absent: a random one is made at start. */
  token?: string;
  passwordHash?: string;
  behindProxy: boolean;
  host: string;
  port: number;
  /** Normalized origins (`scheme://host[:port]`, lower case) accepted besides the bound one. */
  allowedOrigins: string[];
  /** Whether the server speaks TLS itself (`--cert` and `--key`). */
  tls: boolean;
}

/** Flags of `reasonix serve` that override `[serve]`. */
export interface ServeFlags {
  host?: string;
  port?: number;
  tls?: boolean;
}

/** Whether `host` (a listen address or a Host header's name) is a loopback address. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || /^127(\.\d{1,3}){3}$/.test(h);
}

/** `https://Example.com:443/` → `https://example.com`; throws for anything but an origin. */
export function normalizeOrigin(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ServeError(`[serve] allowed_origins: "${text}" is not an origin like https://name`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ServeError(`[serve] allowed_origins: "${text}" must start with http:// or https://`);
  }
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash || url.username) {
    throw new ServeError(`[serve] allowed_origins: "${text}" must be an origin, without a path`);
  }
  return url.origin;
}

/** Checks `[serve]` and the flags; throws {@link ServeError} naming what to change. */
export function serveSettings(config: ServeConfig | undefined, flags: ServeFlags): ServeSettings {
  const c = config ?? {};
  const authMode: AuthMode = c.auth_mode ?? "token";
  const host = flags.host ?? c.host ?? "127.0.0.1";
  const port = flags.port ?? c.port ?? DEFAULT_PORT;
  if (authMode === "none" && !isLoopback(host)) {
    throw new ServeError(
      `auth_mode = "none" listens on loopback only, not on ${host}. ` +
        `Set [serve] auth_mode = "token" or auth_mode = "password" to listen there.`,
    );
  }
  if (authMode === "none" && c.behind_proxy) {
    throw new ServeError(
      `auth_mode = "none" cannot be used behind_proxy: the proxy would open it to everyone. ` +
        `Set [serve] auth_mode = "token" or auth_mode = "password".`,
    );
  }
  if (authMode === "password" && !c.password_hash) {
    throw new ServeError(
      `auth_mode = "password" needs [serve] password_hash: ` +
        `run \`reasonix serve --hash-password\` and put its output there.`,
    );
  }
  return {
    authMode,
    ...(c.token ? { token: c.token } : {}),
    ...(c.password_hash ? { passwordHash: c.password_hash } : {}),
    behindProxy: c.behind_proxy === true,
    host,
    port,
    allowedOrigins: (c.allowed_origins ?? []).map(normalizeOrigin),
    tls: flags.tls === true,
  };
}
