/**
 * Memory facts (spec §3.6): small durable notes with an immutable id, a monotonic revision,
 * times, a type and a scope (this project, or global). One JSON file per fact; every update
 * first snapshots the previous revision; forgetting archives rather than deletes; `restore`
 * brings back an archived fact or an earlier revision as a new, higher revision. Ids are
 * validated, symlinks are refused, writes never overwrite by accident, and a stale revision
 * is a conflict, not a lost update.
 *
 * @module
 */
import { join } from "node:path";
import { type MemoryErrorCode, ReasonixError } from "../../errors.ts";
import { lstatOrUndefined } from "../../tools/fs/mod.ts";

/** What a fact is about. */
export type FactType = "user" | "feedback" | "project" | "reference";
/** Where a fact applies. */
export type FactScope = "project" | "global";

/** One remembered fact. */
export interface Fact {
  id: string;
  revision: number;
  /** ISO times. */
  created: string;
  updated: string;
  type: FactType;
  scope: FactScope;
  text: string;
  /** Set when archived by `forget`. */
  archived?: boolean;
}

export type { MemoryErrorCode } from "../../errors.ts";

/** Memory failures, reported to the model as tool errors. */
export class MemoryError extends ReasonixError {
  declare readonly code: MemoryErrorCode;

  constructor(code: MemoryErrorCode, message: string) {
    super(code, message);
    this.name = "MemoryError";
  }
}

/**
 * The format version of a fact file, stored as `v` beside the fact's fields (files from before
 * the field are version 1). A newer file is refused with a message naming the version needed;
 * it is never rewritten by this version.
 */
export const FACT_FORMAT_VERSION = 1;

/** A fact as its file holds it. */
function factText(fact: Fact): string {
  return JSON.stringify({ v: FACT_FORMAT_VERSION, ...fact }, null, 2) + "\n";
}

const ID = /^f_[a-z0-9]{8,32}$/;
const TYPES: readonly FactType[] = ["user", "feedback", "project", "reference"];

/** A new fact id. */
export function newFactId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `f_${[...bytes].map((b) => (b % 36).toString(36)).join("")}`;
}

function checkId(id: string): void {
  if (!ID.test(id)) {
    throw new MemoryError(
      "memory_invalid",
      `"${id}" is not a fact id (they look like f_k3j9x0a1b2c3)`,
    );
  }
}

/** Refuses a path that is a symlink, so a planted link can't redirect a memory write. */
async function refuseSymlink(path: string): Promise<void> {
  if ((await lstatOrUndefined(path))?.isSymlink) {
    throw new MemoryError(
      "memory_unsafe_path",
      `${path} is a symbolic link; memory refuses to follow it`,
    );
  }
}

/**
 * Reads one fact file. A file whose id is not the one its name promises is refused: the id is
 * used to build later paths, so a planted file must not steer them.
 */
async function readFact(path: string, id: string): Promise<Fact | undefined> {
  let stored: Fact & { v?: unknown };
  try {
    stored = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const { v, ...fact } = stored ?? {};
  if (v !== undefined && !(Number.isInteger(v) && (v as number) >= 1)) {
    throw new MemoryError("memory_invalid", `${path} has format version ${JSON.stringify(v)}`);
  }
  if ((v as number | undefined ?? 1) > FACT_FORMAT_VERSION) {
    throw new MemoryError(
      "memory_invalid",
      `${path} was written by a newer Reasonix (fact format v${v}; this one reads ` +
        `v${FACT_FORMAT_VERSION}); update Reasonix to read or change fact ${id}`,
    );
  }
  if (fact?.id !== id || !Number.isInteger(fact.revision) || typeof fact.text !== "string") {
    throw new MemoryError("memory_invalid", `${path} is not a valid record of fact ${id}`);
  }
  return fact;
}

/** One scope's directory: `<dir>/<id>.json`, `history/<id>/<rev>.json`, `archive/<id>.json`. */
class ScopeDir {
  constructor(readonly dir: string, readonly scope: FactScope) {}

  async #ensure(sub = ""): Promise<string> {
    const path = sub ? join(this.dir, sub) : this.dir;
    await refuseSymlink(this.dir);
    await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    await refuseSymlink(path);
    return path;
  }

  #file(id: string, sub = ""): string {
    checkId(id);
    return sub ? join(this.dir, sub, `${id}.json`) : join(this.dir, `${id}.json`);
  }

  async read(id: string, sub = ""): Promise<Fact | undefined> {
    const path = this.#file(id, sub);
    await refuseSymlink(path);
    return await readFact(path, id);
  }

  /** The snapshots of a fact's earlier revisions, oldest first. */
  async history(id: string): Promise<Fact[]> {
    checkId(id);
    const dir = join(this.dir, "history", id);
    await refuseSymlink(join(this.dir, "history"));
    await refuseSymlink(dir);
    const out: Fact[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        const match = /^([1-9][0-9]{0,8})\.json$/.exec(entry.name);
        if (!entry.isFile || !match) continue;
        const fact = await readFact(join(dir, entry.name), id).catch(() => undefined);
        if (fact?.revision === Number(match[1])) out.push(fact);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return out.sort((a, b) => a.revision - b.revision);
  }

  async list(sub = ""): Promise<Fact[]> {
    const dir = sub ? join(this.dir, sub) : this.dir;
    const out: Fact[] = [];
    try {
      for await (const entry of Deno.readDir(dir)) {
        if (!entry.isFile || !entry.name.endsWith(".json")) continue;
        const id = entry.name.slice(0, -5);
        if (!ID.test(id)) continue;
        const fact = await this.read(id, sub).catch(() => undefined);
        if (fact) out.push(fact);
      }
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    return out;
  }

  /** Writes a fact file that must not exist yet. */
  async create(fact: Fact, sub = ""): Promise<void> {
    await this.#ensure(sub);
    try {
      await Deno.writeTextFile(this.#file(fact.id, sub), factText(fact), {
        createNew: true,
        mode: 0o600,
      });
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) {
        throw new MemoryError(
          "memory_conflict",
          `fact ${fact.id} already exists; memory never overwrites`,
        );
      }
      throw error;
    }
  }

  /** Replaces a fact file atomically. */
  async replace(fact: Fact): Promise<void> {
    const dir = await this.#ensure();
    const target = this.#file(fact.id);
    await refuseSymlink(target);
    const temp = join(dir, `.${fact.id}.${crypto.randomUUID()}.tmp`);
    await Deno.writeTextFile(temp, factText(fact), {
      createNew: true,
      mode: 0o600,
    });
    await Deno.rename(temp, target);
  }

  async snapshot(fact: Fact): Promise<void> {
    const dir = await this.#ensure(join("history", fact.id));
    const path = join(dir, `${fact.revision}.json`);
    await refuseSymlink(path);
    try {
      await Deno.writeTextFile(path, factText(fact), {
        createNew: true,
        mode: 0o600,
      });
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists)) throw error;
    }
  }

  async remove(id: string, sub = ""): Promise<void> {
    const path = this.#file(id, sub);
    await refuseSymlink(path);
    await Deno.remove(path);
  }
}

/** Facts of one project plus the global ones. */
export class FactStore {
  readonly #scopes: Record<FactScope, ScopeDir>;
  readonly #now: () => Date;

  constructor(opts: { projectDir: string; globalDir: string; now?: () => Date }) {
    this.#scopes = {
      project: new ScopeDir(opts.projectDir, "project"),
      global: new ScopeDir(opts.globalDir, "global"),
    };
    this.#now = opts.now ?? (() => new Date());
  }

  /** Active facts of both scopes. */
  async list(): Promise<Fact[]> {
    return [...await this.#scopes.project.list(), ...await this.#scopes.global.list()];
  }

  /** Archived facts of both scopes. */
  async archived(): Promise<Fact[]> {
    return [
      ...await this.#scopes.project.list("archive"),
      ...await this.#scopes.global.list("archive"),
    ];
  }

  async #find(id: string): Promise<{ fact: Fact; dir: ScopeDir }> {
    for (const dir of Object.values(this.#scopes)) {
      const fact = await dir.read(id);
      if (fact) return { fact, dir };
    }
    throw new MemoryError("memory_not_found", `no active fact ${id}; search with the memory tool`);
  }

  /** Creates a fact at revision 1. */
  async create(input: { text: string; type: FactType; scope: FactScope }): Promise<Fact> {
    if (!TYPES.includes(input.type)) {
      throw new MemoryError("memory_invalid", `unknown type "${input.type}"`);
    }
    if (!input.text.trim()) throw new MemoryError("memory_invalid", "a fact needs text");
    const now = this.#now().toISOString();
    const fact: Fact = {
      id: newFactId(),
      revision: 1,
      created: now,
      updated: now,
      type: input.type,
      scope: input.scope,
      text: input.text.trim(),
    };
    await this.#scopes[input.scope].create(fact);
    return fact;
  }

  #checkRevision(fact: Fact, expected: number): void {
    if (fact.revision !== expected) {
      throw new MemoryError(
        "memory_conflict",
        `fact ${fact.id} is at revision ${fact.revision}, not ${expected}; read it again before changing it`,
      );
    }
  }

  /** Updates a fact, snapshotting the current revision first. */
  async update(
    id: string,
    expectedRevision: number,
    change: { text?: string; type?: FactType },
  ): Promise<Fact> {
    const { fact, dir } = await this.#find(id);
    this.#checkRevision(fact, expectedRevision);
    if (change.type && !TYPES.includes(change.type)) {
      throw new MemoryError("memory_invalid", `unknown type "${change.type}"`);
    }
    await dir.snapshot(fact);
    const next: Fact = {
      ...fact,
      revision: fact.revision + 1,
      updated: this.#now().toISOString(),
      text: change.text?.trim() || fact.text,
      type: change.type ?? fact.type,
    };
    await dir.replace(next);
    return next;
  }

  /** Archives a fact (recoverable with `restore`). */
  async archive(id: string, expectedRevision: number): Promise<Fact> {
    const { fact, dir } = await this.#find(id);
    this.#checkRevision(fact, expectedRevision);
    await dir.snapshot(fact);
    const archived: Fact = {
      ...fact,
      revision: fact.revision + 1,
      updated: this.#now().toISOString(),
      archived: true,
    };
    await dir.create(archived, "archive");
    await dir.remove(id);
    return archived;
  }

  /** Where a fact is, active or archived; both at once is a conflict nothing may resolve. */
  async #locate(id: string): Promise<{ fact: Fact; dir: ScopeDir; archived: boolean }> {
    checkId(id);
    for (const dir of Object.values(this.#scopes)) {
      const active = await dir.read(id);
      const archived = await dir.read(id, "archive");
      if (active && archived) {
        throw new MemoryError(
          "memory_conflict",
          `fact ${id} is both active and archived; fix the memory directory by hand`,
        );
      }
      if (active) return { fact: active, dir, archived: false };
      if (archived) return { fact: archived, dir, archived: true };
    }
    throw new MemoryError("memory_not_found", `no fact ${id}, active or archived`);
  }

  /** Every revision of a fact still on disk (snapshots, then the current one), oldest first. */
  async revisions(id: string): Promise<Fact[]> {
    const { fact, dir } = await this.#locate(id);
    const earlier = (await dir.history(id)).filter((f) => f.revision < fact.revision);
    return [...earlier, fact];
  }

  /**
   * Makes an earlier revision's text and type current again, as a new, higher revision (the
   * current one is snapshotted first, so nothing is lost). An archived fact becomes active;
   * without `revision` it comes back with its last text. Restoring the revision that is
   * already current is refused, as is a fact both active and archived.
   */
  async restore(id: string, revision?: number): Promise<Fact> {
    const { fact, dir, archived } = await this.#locate(id);
    const wanted = revision ?? (archived ? fact.revision : undefined);
    if (wanted === undefined) {
      throw new MemoryError(
        "memory_invalid",
        `fact ${id} is active; name the revision to restore (it is at ${fact.revision})`,
      );
    }
    if (wanted === fact.revision && !archived) {
      throw new MemoryError("memory_invalid", `revision ${wanted} of ${id} is already current`);
    }
    const source = wanted === fact.revision
      ? fact
      : (await dir.history(id)).find((f) => f.revision === wanted && wanted < fact.revision);
    if (!source) {
      throw new MemoryError(
        "memory_not_found",
        `fact ${id} has no revision ${wanted}; list its revisions with the memory tool`,
      );
    }
    await dir.snapshot(fact);
    const restored: Fact = {
      id,
      revision: fact.revision + 1,
      created: fact.created,
      updated: this.#now().toISOString(),
      type: source.type,
      scope: dir.scope,
      text: source.text,
    };
    if (archived) {
      // Never overwrites: an active file that appeared meanwhile makes this a conflict.
      await dir.create(restored);
      await dir.remove(id, "archive");
    } else {
      await dir.replace(restored);
    }
    return restored;
  }
}
