/**
 * OAuth state of MCP servers: client registration, tokens, PKCE verifier and discovery
 * results, one file per (server name, resource URL) under the Reasonix-private state
 * directory (`<home>/mcp/oauth/`), never in the workspace. Files are `0600`, the directory
 * `0700`. Because the resource URL is part of the key, a changed URL starts from nothing.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join } from "node:path";

/** Everything stored for one server and resource. Values are the SDK's shapes. */
export interface OAuthRecord {
  server: string;
  resource: string;
  client?: Record<string, unknown>;
  tokens?: Record<string, unknown>;
  codeVerifier?: string;
  discovery?: Record<string, unknown>;
  /** The loopback redirect URL the last interactive authorization used. */
  redirectUrl?: string;
}

/** The canonical form a resource URL is bound by: no fragment, default port dropped. */
export function canonicalResource(url: string | URL): string {
  const u = new URL(String(url));
  u.hash = "";
  return u.href;
}

/** The state file of a server and resource URL inside `stateDir`. */
export function oauthFile(stateDir: string, server: string, resource: string | URL): string {
  const key = createHash("sha256").update(`${server}\0${canonicalResource(resource)}`).digest(
    "hex",
  ).slice(0, 32);
  return join(stateDir, "oauth", `${key}.json`);
}

/** Reads, writes and deletes one record. */
export class OAuthStore {
  readonly path: string;
  readonly #server: string;
  readonly #resource: string;

  constructor(stateDir: string, server: string, resource: string | URL) {
    this.#server = server;
    this.#resource = canonicalResource(resource);
    this.path = oauthFile(stateDir, server, this.#resource);
  }

  /** The stored record, or an empty one for this server and resource. */
  async read(): Promise<OAuthRecord> {
    try {
      const parsed = JSON.parse(await Deno.readTextFile(this.path)) as OAuthRecord;
      // A hash collision or a hand-copied file must never hand tokens to another resource.
      if (parsed.server === this.#server && parsed.resource === this.#resource) return parsed;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound) && !(error instanceof SyntaxError)) throw error;
    }
    return { server: this.#server, resource: this.#resource };
  }

  /** Applies `change` to the stored record and writes it atomically with mode 0600. */
  async update(change: (record: OAuthRecord) => void): Promise<void> {
    const record = await this.read();
    change(record);
    const dir = join(this.path, "..");
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    if (Deno.build.os !== "windows") await Deno.chmod(dir, 0o700);
    const temp = `${this.path}.${crypto.randomUUID()}.tmp`;
    try {
      await Deno.writeTextFile(temp, JSON.stringify(record, null, 2) + "\n", {
        mode: 0o600,
        createNew: true,
      });
      if (Deno.build.os !== "windows") await Deno.chmod(temp, 0o600);
      await Deno.rename(temp, this.path);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  }

  /** Whether tokens are stored. */
  async hasTokens(): Promise<boolean> {
    return (await this.read()).tokens !== undefined;
  }

  /** Deletes the record. */
  async remove(): Promise<void> {
    await Deno.remove(this.path).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
  }
}

/**
 * Clears a removed declaration's OAuth state, unless the declaration that now takes effect
 * under the same name uses the same resource URL (then it is still that server's state).
 */
export async function clearOAuthState(
  stateDir: string,
  removed: { name: string; url?: string },
  fallback?: { url?: string },
): Promise<boolean> {
  if (!removed.url) return false;
  let resource: string;
  try {
    resource = canonicalResource(removed.url);
  } catch {
    return false;
  }
  if (fallback?.url) {
    try {
      if (canonicalResource(fallback.url) === resource) return false;
    } catch {
      // An invalid fallback URL cannot share state; clear it.
    }
  }
  const store = new OAuthStore(stateDir, removed.name, resource);
  const existed = await Deno.stat(store.path).then(() => true, () => false);
  await store.remove();
  return existed;
}

/**
 * Deletes stored OAuth state of servers that are no longer declared anywhere (a declaration
 * deleted by hand rather than with `reasonix mcp remove`). State of a name that is still
 * declared in some source is kept; its binding to the resource URL already stops a changed
 * URL from reusing it. Returns the number of records removed.
 */
export async function pruneOrphanedOAuth(
  stateDir: string,
  declared: ReadonlySet<string>,
): Promise<number> {
  const dir = join(stateDir, "oauth");
  let removed = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(dir));
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    const path = join(dir, entry.name);
    try {
      const record = JSON.parse(await Deno.readTextFile(path)) as Partial<OAuthRecord>;
      if (typeof record.server !== "string" || declared.has(record.server)) continue;
      await Deno.remove(path);
      removed++;
    } catch {
      // Unreadable or already gone: leave it to `reasonix mcp remove`.
    }
  }
  return removed;
}
