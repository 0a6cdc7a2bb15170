/**
 * A fleet is a small dependency graph of tasks (spec §3.14): items with an `id` (default: the
 * 1-based position) and `depends_on`, nothing more. {@linkcode fleetPreflight} rejects a plan
 * that could never finish (duplicate ids, unknown ids, self-loops, cycles) and write claims of
 * items that may run at the same time when they overlap; {@linkcode runFleet} starts each item
 * as soon as its dependencies finished. A failed, skipped or not-complete item skips its whole
 * downstream branch; `failFast` stops starting new items and lets running ones finish.
 * Dependencies live only in the plan: the items' profile-execution specs never see them.
 *
 * @module
 */
import { join, normalize } from "node:path";
import { canonicalJson } from "../../tools/canonical.ts";
import { sha256 } from "./capsule.ts";

/** What preflight reads of an item. */
export interface FleetPlanItem {
  id?: string;
  depends_on?: readonly string[];
  read_only?: boolean;
  write_paths?: readonly string[];
}

/** A checked plan: ids and dependency indices per item. */
export interface FleetPlan {
  ids: string[];
  deps: number[][];
}

/** A plan refused before anything started. */
export class FleetRefusal extends Error {
  override name = "FleetRefusal";
}

/** Checks a plan; throws {@linkcode FleetRefusal} naming every problem. */
export function fleetPreflight(items: readonly FleetPlanItem[]): FleetPlan {
  const ids = items.map((item, i) => item.id ?? String(i + 1));
  const problems: string[] = [];
  const at = new Map<string, number>();
  ids.forEach((id, i) => {
    const first = at.get(id);
    if (first === undefined) at.set(id, i);
    else problems.push(`duplicate id "${id}" (items ${first + 1} and ${i + 1})`);
  });
  const deps = items.map((item, i) =>
    (item.depends_on ?? []).flatMap((dep) => {
      if (dep === ids[i]) {
        problems.push(`"${dep}" depends on itself`);
        return [];
      }
      const j = at.get(dep);
      if (j === undefined) {
        problems.push(`"${ids[i]}" depends on unknown id "${dep}"`);
        return [];
      }
      return [j];
    })
  );
  if (problems.length === 0) {
    const cycle = findCycle(deps);
    if (cycle) problems.push(`cycle ${[...cycle, cycle[0]].map((i) => `"${ids[i]}"`).join(" → ")}`);
  }
  if (problems.length === 0) problems.push(...claimOverlaps(items, ids, deps));
  if (problems.length) throw new FleetRefusal(`fleet refused: ${problems.join("; ")}`);
  return { ids, deps };
}

/** A cycle as item indices in dependency order, or undefined. */
function findCycle(deps: readonly number[][]): number[] | undefined {
  const state = deps.map(() => 0); // 0 new, 1 on the path, 2 finished
  const path: number[] = [];
  const visit = (i: number): number[] | undefined => {
    state[i] = 1;
    path.push(i);
    for (const j of deps[i]) {
      if (state[j] === 1) return path.slice(path.indexOf(j)).reverse();
      if (state[j] === 0) {
        const found = visit(j);
        if (found) return found;
      }
    }
    path.pop();
    state[i] = 2;
    return undefined;
  };
  for (let i = 0; i < deps.length; i++) {
    if (state[i] === 0) {
      const found = visit(i);
      if (found) return found;
    }
  }
  return undefined;
}

/** Every item reachable from `i` by its dependencies. */
function ancestors(deps: readonly number[][]): Set<number>[] {
  const memo: (Set<number> | undefined)[] = deps.map(() => undefined);
  const of = (i: number): Set<number> => {
    const known = memo[i];
    if (known) return known;
    const out = new Set<number>();
    memo[i] = out;
    for (const j of deps[i]) {
      out.add(j);
      for (const k of of(j)) out.add(k);
    }
    return out;
  };
  return deps.map((_, i) => of(i));
}

function lexical(path: string): string {
  const p = normalize(path).replace(/\/+$/, "");
  return p === "" || p === "." ? "." : p.replace(/^\.\//, "");
}

function overlaps(a: string, b: string): boolean {
  if (a === "." || b === ".") return true;
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/**
 * Explicit claims of items that may run at the same time (no path between them in the graph)
 * must not overlap; an edge serializes a pair, so it may share paths. The scheduler still keeps
 * apart what only overlaps through symlinks.
 */
function claimOverlaps(
  items: readonly FleetPlanItem[],
  ids: readonly string[],
  deps: readonly number[][],
): string[] {
  const up = ancestors(deps);
  const claims = items.map((item) =>
    item.read_only || !item.write_paths?.length ? undefined : item.write_paths.map(lexical)
  );
  const out: string[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = claims[i], b = claims[j];
      if (!a || !b || up[i].has(j) || up[j].has(i)) continue;
      const shared = a.filter((p) => b.some((q) => overlaps(p, q)));
      if (shared.length) {
        out.push(
          `"${ids[i]}" and "${ids[j]}" may run at the same time but both claim ${
            shared.join(", ")
          } (give them disjoint write_paths or an edge)`,
        );
      }
    }
  }
  return out;
}

/** The state of one item, as front ends show it. */
export type FleetItemState = "waiting" | "running" | "done" | "failed" | "skipped";

/** How one item ended, as the fleet needs it. */
export interface FleetItemEnd {
  /** `done` when the run completed; `failed` when it failed, stopped or never started. */
  state: "done" | "failed";
  /** The adjudicated status of a writer's report, when it handed one in. */
  status?: string;
  /** Why it failed. */
  reason?: string;
}

/** How to run a plan. */
export interface RunFleetOptions<R> {
  plan: FleetPlan;
  /** Runs item `index`; its result and how it ended. */
  run(index: number): Promise<{ result: R; end: FleetItemEnd }>;
  /** Stop starting new items after the first failure; running ones finish. */
  failFast?: boolean;
  /** Stops starting new items (Ctrl-C); running ones end through their own signal. */
  signal?: AbortSignal;
  /** Results of items that finished in an earlier attempt of the same plan (a resume). */
  finished?: ReadonlyMap<number, { result: R; end: FleetItemEnd }>;
  /** Each state change of an item. */
  onState?(
    index: number,
    state: FleetItemState,
    info: { end?: FleetItemEnd; reason?: string; result?: R },
  ): void;
}

/** One item at the end of a fleet run. */
export interface FleetItemOutcome<R> {
  state: FleetItemState;
  result?: R;
  end?: FleetItemEnd;
  /** Why it was skipped. */
  reason?: string;
}

/** Whether downstream items may build on an item that ended so. */
export function buildsOn(end: FleetItemEnd): boolean {
  return end.state === "done" && (end.status === undefined || end.status === "complete");
}

/** Runs a checked plan to its end. */
export async function runFleet<R>(opts: RunFleetOptions<R>): Promise<FleetItemOutcome<R>[]> {
  const { plan } = opts;
  const n = plan.ids.length;
  const out: FleetItemOutcome<R>[] = plan.ids.map(() => ({ state: "waiting" }));
  const set = (i: number, o: FleetItemOutcome<R>) => {
    out[i] = o;
    opts.onState?.(i, o.state, { end: o.end, reason: o.reason, result: o.result });
  };
  let stopped: string | undefined;
  const running = new Map<number, Promise<void>>();
  for (let i = 0; i < n; i++) opts.onState?.(i, "waiting", {});
  for (const [i, prior] of opts.finished ?? []) set(i, { state: prior.end.state, ...prior });

  const settle = () => {
    // Skips propagate until nothing changes: a skipped item skips its own dependents.
    let changed = true;
    while (changed) {
      changed = false;
      for (let i = 0; i < n; i++) {
        if (out[i].state !== "waiting" || running.has(i)) continue;
        const bad = plan.deps[i].find((j) =>
          out[j].state === "failed" || out[j].state === "skipped" ||
          (out[j].state === "done" && !buildsOn(out[j].end!))
        );
        if (bad !== undefined) {
          const dep = out[bad];
          const why = dep.state === "done" ? `status ${dep.end?.status}` : dep.state;
          set(i, { state: "skipped", reason: `depends on "${plan.ids[bad]}" (${why})` });
          changed = true;
        }
      }
    }
  };

  const start = () => {
    settle();
    for (let i = 0; i < n; i++) {
      if (out[i].state !== "waiting" || running.has(i)) continue;
      if (!plan.deps[i].every((j) => out[j].state === "done")) continue;
      if (stopped || opts.signal?.aborted) continue;
      set(i, { state: "running" });
      running.set(
        i,
        opts.run(i).then(
          ({ result, end }) => set(i, { state: end.state, result, end }),
          (error) =>
            set(i, {
              state: "failed",
              end: { state: "failed", reason: String(error?.message ?? error) },
            }),
        ).finally(() => {
          running.delete(i);
          const o = out[i];
          if (opts.failFast && !stopped && !(o.end && buildsOn(o.end))) {
            stopped = `fail_fast: "${plan.ids[i]}" ${
              o.state === "failed" ? "failed" : `is ${o.end?.status}`
            }`;
          }
          start();
        }),
      );
    }
    if (running.size === 0) {
      // Nothing runs and nothing can start: what still waits never will.
      for (let i = 0; i < n; i++) {
        if (out[i].state !== "waiting") continue;
        if (stopped) set(i, { state: "skipped", reason: stopped });
        else if (opts.signal?.aborted) set(i, { state: "skipped", reason: "cancelled" });
      }
      done();
    }
  };
  let done!: () => void;
  const finished = new Promise<void>((resolve) => done = resolve);
  start();
  await finished;
  return out;
}

/**
 * Fleet progress beside the parent's transcript, so a fleet cut short (Ctrl-C, a crash) resumes
 * with `reasonix run --continue`: when the same plan is called again in that session, items
 * that finished keep their results and the rest rerun. One file per plan, named by the hash of
 * its canonical arguments.
 */
export class FleetStore<R> {
  readonly #path: string;
  readonly #items: Record<string, { result: R; end: FleetItemEnd }>;

  private constructor(path: string, items: Record<string, { result: R; end: FleetItemEnd }>) {
    this.#path = path;
    this.#items = items;
  }

  /** The store of a plan in `dir`; undefined without a directory (an ephemeral parent). */
  static async open<R>(dir: string | undefined, plan: unknown): Promise<FleetStore<R> | undefined> {
    if (!dir) return undefined;
    const key = (await sha256(canonicalJson(plan))).slice(0, 16);
    const path = join(dir, `${key}.json`);
    let items: Record<string, { result: R; end: FleetItemEnd }> = {};
    try {
      items = JSON.parse(await Deno.readTextFile(path)).items ?? {};
    } catch {
      // No earlier attempt, or a damaged file: everything runs.
    }
    return new FleetStore(path, items);
  }

  /** Items of `ids` that finished `done` in an earlier attempt. */
  finished(ids: readonly string[]): Map<number, { result: R; end: FleetItemEnd }> {
    const out = new Map<number, { result: R; end: FleetItemEnd }>();
    ids.forEach((id, i) => {
      const item = this.#items[id];
      if (item?.end.state === "done") out.set(i, item);
    });
    return out;
  }

  /** Records a finished item. */
  async save(id: string, item: { result: R; end: FleetItemEnd }): Promise<void> {
    this.#items[id] = item;
    try {
      await Deno.mkdir(join(this.#path, ".."), { recursive: true });
      const tmp = `${this.#path}.tmp`;
      await Deno.writeTextFile(tmp, JSON.stringify({ items: this.#items }));
      await Deno.rename(tmp, this.#path);
    } catch {
      // Progress that cannot be kept only costs a rerun on resume.
    }
  }
}
