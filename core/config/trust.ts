/**
 * Workspace trust: which project-declared programs and which loosening project settings the
 * user accepted, per workspace. Project files (`reasonix.toml`, `.mcp.json`) are untrusted
 * input: a cloned repository, a `git pull` or the model can write them. What they declare to
 * run, or what they would loosen, takes effect only once the user trusted that exact
 * declaration.
 *
 * A grant is keyed by the resolved (real) workspace path and the SHA-256 of the canonical
 * declaration: its kind, its name, the declaring file (relative to the workspace) and every
 * setting as written. Any change to the declaration changes the hash and voids the grant. The
 * line is shown in prompts but not hashed, so adding a comment above a declaration keeps it.
 *
 * Grants live in `<home>/trust.json` (mode 0600, replaced atomically).
 *
 * @module
 */
import { createHash } from "node:crypto";
import { isAbsolute, join, relative } from "node:path";
import { atomicWrite } from "../../tools/fs/mod.ts";
import { ConfigError } from "./errors.ts";
import { parseConfigToml } from "./files.ts";
import { type KeyPath, locateKey } from "./toml_locate.ts";

/**
 * What a trust declaration makes Reasonix do: start a program or connect to a server
 * (`mcp_server`), apply loosening settings (`settings`), or send the conversation to an
 * endpoint a project file chose (`provider`).
 */
export type TrustKind = "mcp_server" | "settings" | "provider";

/** One thing a project file declares that needs the user's trust before it takes effect. */
export interface TrustDeclaration {
  /** What trusting it lets happen. */
  kind: TrustKind;
  /** The server or provider name; `settings` for the loosening settings of `reasonix.toml`. */
  name: string;
  /** Absolute path of the declaring file. */
  file: string;
  /** 1-based line of the declaration, for messages; not part of the hash. */
  line?: number;
  /** Everything that decides what runs or what applies, as written. All of it is hashed. */
  content: Record<string, unknown>;
}

/** The name `settings` every settings declaration has. */
export const SETTINGS_NAME = "settings";

/**
 * Keys of a project `reasonix.toml` that loosen what the user allows. They apply only in a
 * trusted workspace; everything else a project file sets either tightens (deny and ask rules,
 * `forbid_read`, a stricter mode) or is held back elsewhere (a looser mode, roots outside it).
 */
export const LOOSENING_SETTINGS: readonly (readonly [string, string])[] = [
  ["permissions", "allow"],
  ["sandbox", "allow_write"],
  ["sandbox", "allow_unix_sockets"],
  ["tools", "pass_env"],
  // Who may reach `reasonix serve` and how: a cloned repository must not open it up.
  ["serve", "auth_mode"],
  ["serve", "token"],
  ["serve", "password_hash"],
  ["serve", "behind_proxy"],
  ["serve", "host"],
  ["serve", "allowed_origins"],
];

/** JSON with object keys sorted at every level: the same value always gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortKeys(v);
  }
  return out;
}

/** The file of a declaration as stored and hashed: relative to the workspace when inside it. */
export function workspaceFile(workspace: string, file: string): string {
  const rel = relative(workspace, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel : file;
}

/** The SHA-256 (hex) of a declaration, as trusted in `workspace`. */
export function declarationHash(workspace: string, d: TrustDeclaration): string {
  const canonical = canonicalJson({
    version: 1,
    kind: d.kind,
    name: d.name,
    file: workspaceFile(workspace, d.file),
    content: d.content,
  });
  return createHash("sha256").update(canonical).digest("hex");
}

/**
 * The loosening settings of a project `reasonix.toml` as one declaration, or `undefined` when
 * the file loosens nothing. A `false` switch or an empty list loosens nothing and is left out.
 * Throws {@link ConfigError} when the text is not TOML.
 */
export function projectSettingsDeclaration(
  text: string,
  file: string,
): TrustDeclaration | undefined {
  const raw = parseConfigToml(text, file);
  const content: Record<string, unknown> = {};
  let line: number | undefined;
  for (const [table, key] of LOOSENING_SETTINGS) {
    const section = raw[table];
    if (section === null || typeof section !== "object" || Array.isArray(section)) continue;
    const value = (section as Record<string, unknown>)[key];
    if (value === undefined || value === false) continue;
    if (Array.isArray(value) && value.length === 0) continue;
    content[`${table}.${key}`] = value;
    const at = locateKey(text, [table, key] as KeyPath)?.line;
    if (at !== undefined && (line === undefined || at < line)) line = at;
  }
  if (Object.keys(content).length === 0) return undefined;
  return { kind: "settings", name: SETTINGS_NAME, file, line, content };
}

/** Keys of a `[[providers]]` table that decide where requests go and what goes with them. */
const PROVIDER_TRUST_KEYS = [
  "kind",
  "base_url",
  "request_url",
  "chat_url",
  "api_key_env",
  "headers",
] as const;

/** Endpoint keys: a project table that sets one of them chooses where the conversation goes. */
const ENDPOINT_FIELDS = ["base_url", "request_url", "chat_url"] as const;

/**
 * One declaration per `[[providers]]` table of a project `reasonix.toml` that sets an endpoint
 * (`base_url`, `request_url`, `chat_url`): using that provider sends the conversation, and
 * everything the model reads, to where the project file chose. Holds the endpoint, `kind`,
 * `api_key_env` and `headers` as written. Throws {@link ConfigError} when the text is not TOML.
 */
export function projectProviderDeclarations(text: string, file: string): TrustDeclaration[] {
  const raw = parseConfigToml(text, file);
  if (!Array.isArray(raw.providers)) return [];
  const out: TrustDeclaration[] = [];
  raw.providers.forEach((p: unknown, i: number) => {
    if (p === null || typeof p !== "object" || Array.isArray(p)) return;
    const table = p as Record<string, unknown>;
    if (typeof table.name !== "string") return;
    if (!ENDPOINT_FIELDS.some((k) => table[k] !== undefined)) return;
    const content: Record<string, unknown> = {};
    for (const key of PROVIDER_TRUST_KEYS) if (table[key] !== undefined) content[key] = table[key];
    const line = locateKey(text, ["providers", i] as KeyPath)?.line;
    out.push({ kind: "provider", name: table.name, file, line, content });
  });
  return out;
}

/** One line describing what a declaration runs or loosens, safe to print on a terminal. */
export function declarationSummary(d: TrustDeclaration): string {
  const c = d.content;
  if (d.kind === "provider") {
    return printable(
      ENDPOINT_FIELDS.filter((k) => c[k] !== undefined).map((k) => `${k} = ${c[k]}`).join("; "),
    );
  }
  if (d.kind === "settings") {
    return Object.entries(c).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).map(printable)
      .join("; ");
  }
  if (typeof c.command === "string") {
    const args = Array.isArray(c.args) ? c.args.map(String) : [];
    return [c.command, ...args].map(shellWord).join(" ");
  }
  return printable(String(c.url ?? ""));
}

/** A word as a shell would need it quoted, with control characters escaped. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word)) return word;
  return printable(JSON.stringify(word));
}

// deno-lint-ignore no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text with control characters (C0, DEL, C1) and bidirectional overrides escaped, so a
 * declaration cannot move the cursor or disguise itself on the terminal that shows it.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// ---------------------------------------------------------------------------------------
// The store

/** One trusted declaration in `trust.json`. */
export interface TrustGrant {
  hash: string;
  kind: TrustKind;
  name: string;
  /** The declaring file, relative to the workspace. */
  file: string;
  /** What it runs or loosens, as {@link declarationSummary} shows it. */
  summary: string;
  /** When it was granted (ISO 8601). */
  granted: string;
}

/** The grants of one workspace. */
export interface WorkspaceTrust {
  /** The resolved workspace path. */
  workspace: string;
  grants: TrustGrant[];
}

/**
 * The format version of `trust.json` this Reasonix reads and writes. An older file is read as
 * it is; a newer one is refused (nothing in it trusted, nothing written over it) with a message
 * naming the version it needs.
 */
export const TRUST_FORMAT_VERSION = 1;

/** The contents of `trust.json`. */
interface TrustFile {
  version: typeof TRUST_FORMAT_VERSION;
  workspaces: Record<string, { grants: TrustGrant[] }>;
}

/** What reading the store found. */
export interface TrustSnapshot {
  workspaces: WorkspaceTrust[];
  /** Set when the file is damaged or unsafe: then nothing in it is trusted. */
  warning?: string;
}

const KINDS: readonly string[] = ["mcp_server", "settings", "provider"];

function isGrant(v: unknown): v is TrustGrant {
  if (v === null || typeof v !== "object") return false;
  const g = v as Record<string, unknown>;
  return typeof g.hash === "string" && /^[0-9a-f]{64}$/.test(g.hash) &&
    typeof g.kind === "string" && KINDS.includes(g.kind) && typeof g.name === "string" &&
    typeof g.file === "string" && typeof g.summary === "string" && typeof g.granted === "string";
}

/** Why `parsed` is not a trust file, or undefined. */
function shapeProblem(parsed: unknown): string | undefined {
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return "it is not a JSON object";
  }
  const root = parsed as Record<string, unknown>;
  if (root.version !== TRUST_FORMAT_VERSION) {
    return `it has version ${JSON.stringify(root.version)}, not ${TRUST_FORMAT_VERSION}`;
  }
  const ws = root.workspaces;
  if (ws === null || typeof ws !== "object" || Array.isArray(ws)) {
    return `"workspaces" is not an object`;
  }
  for (const [path, entry] of Object.entries(ws)) {
    const grants = (entry as { grants?: unknown } | null)?.grants;
    if (!Array.isArray(grants)) return `workspace ${JSON.stringify(path)} has no "grants" list`;
    const bad = grants.findIndex((g) => !isGrant(g));
    if (bad >= 0) return `grant #${bad + 1} of workspace ${JSON.stringify(path)} is malformed`;
  }
  return undefined;
}

/** The resolved path trust is keyed by; a missing directory keeps its absolute path. */
export async function workspaceKey(cwd: string): Promise<string> {
  try {
    return await Deno.realPath(cwd);
  } catch {
    return cwd;
  }
}

/**
 * `<home>/trust.json`. Reads never fail on a damaged file: nothing is trusted and the snapshot
 * carries a warning. Writes refuse to replace a damaged file, so a hand edit gone wrong is
 * reported instead of silently discarded.
 */
export class TrustStore {
  /** The file's path. */
  readonly path: string;

  constructor(home: string) {
    this.path = join(home, "trust.json");
  }

  /** Every workspace with grants, sorted by path. */
  async read(): Promise<TrustSnapshot> {
    const loaded = await this.#load();
    if ("problem" in loaded) {
      return {
        workspaces: [],
        warning: `${this.path} ${loaded.problem}, so nothing in it is trusted; ` +
          `${loaded.fix}`,
      };
    }
    return {
      workspaces: Object.entries(loaded.data.workspaces)
        .map(([workspace, { grants }]) => ({ workspace, grants }))
        .filter((w) => w.grants.length > 0)
        .sort((a, b) => a.workspace < b.workspace ? -1 : 1),
    };
  }

  /** The hashes trusted in `workspace` (a resolved path), and any warning about the file. */
  async trusted(workspace: string): Promise<{ hashes: Set<string>; warning?: string }> {
    const snapshot = await this.read();
    const grants = snapshot.workspaces.find((w) => w.workspace === workspace)?.grants ?? [];
    return { hashes: new Set(grants.map((g) => g.hash)), warning: snapshot.warning };
  }

  /**
   * Trusts `declarations` in `workspace`. A grant replaces the earlier grants of the same
   * declaration (kind, name and file), so a changed declaration does not leave stale ones.
   * Returns the new grants.
   */
  async grant(
    workspace: string,
    declarations: readonly TrustDeclaration[],
    now: Date = new Date(),
  ): Promise<TrustGrant[]> {
    const added = declarations.map((d): TrustGrant => ({
      hash: declarationHash(workspace, d),
      kind: d.kind,
      name: d.name,
      file: workspaceFile(workspace, d.file),
      summary: declarationSummary(d),
      granted: now.toISOString(),
    }));
    await this.#update((data) => {
      const same = (a: TrustGrant, b: TrustGrant) =>
        a.kind === b.kind && a.name === b.name && a.file === b.file;
      const kept = (data.workspaces[workspace]?.grants ?? [])
        .filter((g) => !added.some((a) => same(a, g)));
      data.workspaces[workspace] = { grants: [...kept, ...added] };
    });
    return added;
  }

  /**
   * Removes the grants of `workspace` named in `names` (every grant when `names` is absent).
   * Returns what was removed.
   */
  async revoke(workspace: string, names?: readonly string[]): Promise<TrustGrant[]> {
    let removed: TrustGrant[] = [];
    await this.#update((data) => {
      const grants = data.workspaces[workspace]?.grants ?? [];
      removed = grants.filter((g) => names === undefined || names.includes(g.name));
      const kept = grants.filter((g) => !removed.includes(g));
      if (kept.length) data.workspaces[workspace] = { grants: kept };
      else delete data.workspaces[workspace];
    });
    return removed;
  }

  async #load(): Promise<{ data: TrustFile } | { problem: string; fix: string }> {
    let text: string;
    try {
      const info = await Deno.lstat(this.path);
      if (!info.isFile) {
        return {
          problem: "is not a regular file",
          fix: `remove it and grant trust again with \`reasonix trust grant\``,
        };
      }
      if (Deno.build.os !== "windows" && info.mode !== null && (info.mode & 0o022) !== 0) {
        return {
          problem: `can be written by other users (mode ${(info.mode & 0o777).toString(8)})`,
          fix: `run chmod 600 ${this.path} if its grants are yours, or remove it`,
        };
      }
      text = await Deno.readTextFile(this.path);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        return { data: { version: TRUST_FORMAT_VERSION, workspaces: {} } };
      }
      return {
        problem: `cannot be read (${(error as Error).message})`,
        fix: "make it readable or remove it",
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return {
        problem: `is not valid JSON (${(error as Error).message})`,
        fix: "correct it, or remove it and grant trust again with `reasonix trust grant`",
      };
    }
    const version = (parsed as { version?: unknown } | null)?.version;
    if (Number.isInteger(version) && (version as number) > TRUST_FORMAT_VERSION) {
      return {
        problem: `was written by a newer Reasonix (trust format v${version}; this one reads ` +
          `v${TRUST_FORMAT_VERSION})`,
        fix: `update Reasonix to a version that reads trust format v${version}; the file is ` +
          "kept as it is",
      };
    }
    const problem = shapeProblem(parsed);
    if (problem) {
      return {
        problem: `is damaged: ${problem}`,
        fix: "correct it, or remove it and grant trust again with `reasonix trust grant`",
      };
    }
    return { data: parsed as TrustFile };
  }

  async #update(change: (data: TrustFile) => void): Promise<void> {
    const loaded = await this.#load();
    if ("problem" in loaded) {
      throw new ConfigError({
        file: this.path,
        problem: `the trust store ${loaded.problem}; it was left as it is`,
        fix: loaded.fix,
      });
    }
    change(loaded.data);
    const dir = join(this.path, "..");
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const text = JSON.stringify(loaded.data, null, 2) + "\n";
    await atomicWrite(this.path, new TextEncoder().encode(text), { mode: 0o600 });
  }
}
