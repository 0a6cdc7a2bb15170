/**
 * Cache-first context management (spec §3.6). Below the trigger the view is the canonical
 * transcript plus the current checkpoint, and only ever grows at the end. Crossing the trigger
 * starts one single-flight maintenance transaction: prune long tool results; if pressure
 * remains, summarize the old prefix with a request that reuses the live prefix; if no summary
 * can be formed and the view is at the hard limit, fall back to the lossy `truncate`
 * projection; only then report that compaction is required.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import type { Message, Provider, ProviderRequest, ToolSchema } from "../../providers/types.ts";
import type { MaintenanceFailure, ProjectionRecord } from "../store/transcript.ts";
import type { TokenEstimator } from "./estimator.ts";
import { emptyProjection, headText, ProjectionView } from "./projection.ts";
import { needsPrune } from "./prune.ts";
import {
  boundedTranscript,
  compactionInstruction,
  requestSummary,
  SUMMARY_MAX_TOKENS,
  type SummaryOutcome,
} from "./summary.ts";

/** Share of the window kept verbatim after a summary. */
export const KEEP_RECENT_RATIO = 0.16;
/** Planning margin under a summary request, as a share of the window… */
export const MARGIN_RATIO = 0.05;
/** …and at least this many tokens. */
export const MIN_MARGIN_TOKENS = 256;
/** Successful summaries one pressure transaction may make. */
export const MAX_PRESSURE_SUMMARIES = 2;
/** Smaller re-plans after the provider rejects a summary request as too long. */
export const MAX_SUMMARY_REPLANS = 2;

/** Compaction could not bring the request under the window. */
export class CompactionRequiredError extends ReasonixError {
  constructor(message: string) {
    super("compaction_required", message);
    this.name = "CompactionRequiredError";
  }
}

/** What maintenance did, for the UI and `run --json`. */
export interface CompactionReport {
  /** What happened: old tool results pruned, history summarized or truncated, or nothing. */
  phase: "pruned" | "summarized" | "truncated" | "failed";
  /** Why maintenance ran. */
  cause: "pressure" | "overflow" | "manual";
  /** The projection generation after this step (it grows by one with each installed summary). */
  generation: number;
  /** Estimated prompt tokens before and after. */
  beforeTokens: number;
  /** Estimated prompt tokens after maintenance. */
  afterTokens: number;
  /** For `failed`: why no summary was installed. */
  reason?: string;
}

/** Where checkpoints and failures are persisted (the transcript). */
export interface ContextPersistence {
  projection(record: ProjectionRecord): void;
  failure(failure: MaintenanceFailure): void;
}

/** Options of a context manager. */
export interface ContextManagerOptions {
  provider: Provider;
  model: string;
  system: string;
  tools: readonly ToolSchema[];
  temperature?: number;
  contextWindow: number;
  /** `agent.compact_ratio`. */
  compactRatio: number;
  estimator: TokenEstimator;
  persist?: ContextPersistence;
  /** Restored state of a resumed session. */
  projection?: ProjectionRecord;
  failures?: MaintenanceFailure[];
  summaryTimeoutMs?: number;
}

/** The result of preparing a request. */
export interface Prepared {
  messages: readonly Message[];
  /** Raw (uncalibrated) estimate of the request, to pair with the real count later. */
  rawTokens: number;
  reports: CompactionReport[];
}

interface Attempt {
  ok: boolean;
  reason?: string;
}

/** One maintenance pass: why it runs, its signal, and what the summary must respect. */
interface MaintenanceRun {
  cause: CompactionReport["cause"];
  signal: AbortSignal;
  /** Index of the current turn's first message, when an overflow rescue may fold its rounds. */
  turnStart?: number;
  /** What the summary must keep (`/compact <instructions>`). */
  focus?: string;
}

/** Plans, runs and persists context maintenance for one conversation. */
export class ContextManager {
  readonly #o: ContextManagerOptions;
  #view: ProjectionView;
  #failures: MaintenanceFailure[];
  #busy: Promise<unknown> = Promise.resolve();

  constructor(opts: ContextManagerOptions) {
    this.#o = opts;
    this.#view = new ProjectionView(opts.projection ?? emptyProjection());
    this.#failures = [...(opts.failures ?? [])];
  }

  /** `floor(context_window × compact_ratio)`. */
  get triggerTokens(): number {
    return Math.floor(this.#o.contextWindow * this.#o.compactRatio);
  }

  /** The window minus the planning margin: past this a request cannot be sent as is. */
  get hardLimit(): number {
    return this.#o.contextWindow - this.#margin();
  }

  /** How much a view must grow after a failed or forced attempt before paying again (5%). */
  get growthStep(): number {
    return Math.ceil(this.#o.contextWindow * MARGIN_RATIO);
  }

  /** The installed projection. */
  get projection(): ProjectionRecord {
    return this.#view.record;
  }

  #margin(): number {
    return Math.max(MIN_MARGIN_TOKENS, Math.ceil(this.#o.contextWindow * MARGIN_RATIO));
  }

  /** The provider-visible messages now. */
  view(canonical: readonly Message[]): Message[] {
    return this.#view.view(canonical);
  }

  #raw(messages: readonly Message[], tools: readonly ToolSchema[] = this.#o.tools): number {
    return this.#o.estimator.rawRequest(this.#o.system, tools, messages);
  }

  /** Calibrated estimate of a request carrying `messages`. */
  estimate(messages: readonly Message[]): number {
    return this.#o.estimator.calibrated(this.#raw(messages));
  }

  /** Calibrated estimate of a prepared request, from the raw count `prepare` already made. */
  estimatePrepared(prepared: Prepared): number {
    return this.#o.estimator.calibrated(prepared.rawTokens);
  }

  /** Feeds the real prompt count of a sent request back into the estimator. */
  observe(rawTokens: number, actualPromptTokens: number): void {
    this.#o.estimator.observe(rawTokens, actualPromptTokens);
  }

  /** Runs `fn` after any maintenance in flight: one transaction at a time. */
  #single<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#busy.then(fn, fn);
    this.#busy = next.catch(() => {});
    return next;
  }

  /**
   * Returns the messages for the next request. Below the trigger nothing is rewritten and
   * nothing is written.
   */
  prepare(canonical: readonly Message[], opts: { signal: AbortSignal }): Promise<Prepared> {
    const messages = this.view(canonical);
    const rawTokens = this.#raw(messages);
    if (this.#o.estimator.calibrated(rawTokens) < this.triggerTokens) {
      return Promise.resolve({ messages, rawTokens, reports: [] });
    }
    return this.#single(() =>
      this.#maintain(canonical, { cause: "pressure", signal: opts.signal })
    );
  }

  /**
   * After the provider rejected a request as too long: one summary (which may fold completed
   * rounds of the current turn, keeping the last two), else the truncate projection. Throws
   * `CompactionRequiredError` when nothing fits.
   */
  rescueOverflow(
    canonical: readonly Message[],
    opts: { signal: AbortSignal; turnStart: number; statedPromptTokens?: number },
  ): Promise<Prepared> {
    return this.#single(async () => {
      const current = this.view(canonical);
      if (opts.statedPromptTokens) this.observe(this.#raw(current), opts.statedPromptTokens);
      return await this.#maintain(canonical, {
        cause: "overflow",
        signal: opts.signal,
        turnStart: opts.turnStart,
      });
    });
  }

  /** `/compact`: summarize now, regardless of the trigger and of earlier failures. */
  compactNow(
    canonical: readonly Message[],
    opts: { signal: AbortSignal; instructions?: string },
  ): Promise<Prepared> {
    return this.#single(() =>
      this.#maintain(canonical, {
        cause: "manual",
        signal: opts.signal,
        focus: opts.instructions,
      })
    );
  }

  #install(record: ProjectionRecord): void {
    this.#view = new ProjectionView(record);
    this.#o.persist?.projection(record);
  }

  #paused(estimate: number): boolean {
    const generation = this.#view.record.generation;
    const last = this.#failures.findLast((f) => f.generation === generation);
    if (!last) return false;
    return estimate < last.atTokens + Math.ceil(this.#o.contextWindow * MARGIN_RATIO);
  }

  async #maintain(canonical: readonly Message[], run: MaintenanceRun): Promise<Prepared> {
    const { cause } = run;
    const reports: CompactionReport[] = [];
    const trigger = this.triggerTokens;
    let messages = this.view(canonical);
    let estimate = this.estimate(messages);
    const done = (): Prepared => ({ messages, rawTokens: this.#raw(messages), reports });

    if (cause === "pressure" && estimate < trigger) return done();
    if (cause === "pressure" && this.#paused(estimate)) {
      if (estimate < this.hardLimit) return done();
      return this.#truncateOrThrow(canonical, cause, reports);
    }

    // 1. Prune long tool results (cheap, no model call).
    if (cause !== "manual") {
      const pruned = this.#prunable(canonical);
      if (pruned.length) {
        const before = estimate;
        const record = this.#view.record;
        this.#install({
          ...record,
          generation: record.generation + 1,
          pruned: [...record.pruned, ...pruned].sort((a, b) => a - b),
        });
        messages = this.view(canonical);
        estimate = this.estimate(messages);
        reports.push(this.#report("pruned", cause, { before, after: estimate }));
        if (estimate < trigger) return done();
      }
    }

    // 2. Summaries.
    const limit = cause === "pressure" ? MAX_PRESSURE_SUMMARIES : 1;
    let failure: string | undefined;
    for (let n = 0; n < limit; n++) {
      const before = estimate;
      const attempt = await this.#summarize(canonical, run);
      if (!attempt.ok) {
        failure = attempt.reason;
        break;
      }
      messages = this.view(canonical);
      estimate = this.estimate(messages);
      reports.push(this.#report("summarized", cause, { before, after: estimate }));
      if (estimate < trigger) return done();
    }
    if (failure === undefined) return done();

    const failed = this.#report("failed", cause, {
      before: estimate,
      after: estimate,
      reason: failure,
    });
    reports.push(failed);
    const record: MaintenanceFailure = {
      generation: this.#view.record.generation,
      atTokens: estimate,
      status: cause === "manual" ? "failed" : "blocked",
      reason: failure,
    };
    if (cause !== "manual") {
      this.#failures.push(record);
      this.#o.persist?.failure(record);
    }
    // 3. No digest was formed: below the hard limit the last projection stands.
    if (cause === "manual" || (cause === "pressure" && estimate < this.hardLimit)) return done();
    return this.#truncateOrThrow(canonical, cause, reports);
  }

  #report(
    phase: CompactionReport["phase"],
    cause: CompactionReport["cause"],
    tokens: { before: number; after: number; reason?: string },
  ): CompactionReport {
    const { reason } = tokens;
    return {
      phase,
      cause,
      generation: this.#view.record.generation,
      beforeTokens: tokens.before,
      afterTokens: tokens.after,
      ...(reason ? { reason } : {}),
    };
  }

  /** Canonical indices of visible tool results that pruning would shorten. */
  #prunable(canonical: readonly Message[]): number[] {
    const already = new Set(this.#view.record.pruned);
    const blanked = new Set(this.#view.record.truncated?.blanked ?? []);
    const out: number[] = [];
    for (let i = this.#view.start; i < canonical.length; i++) {
      const m = canonical[i];
      if (m.role === "tool" && !already.has(i) && !blanked.has(i) && needsPrune(m.content)) {
        out.push(i);
      }
    }
    return out;
  }

  /** The latest cut that keeps at least the most recent 16% of the window verbatim. */
  #keepCut(canonical: readonly Message[]): number {
    const keep = Math.floor(this.#o.contextWindow * KEEP_RECENT_RATIO);
    let tokens = 0;
    let cut = canonical.length;
    for (let i = canonical.length - 1; i >= this.#view.start; i--) {
      tokens += this.#o.estimator.message(this.#view.message(canonical, i));
      if (tokens > keep) break;
      cut = i;
    }
    return cut;
  }

  /** Moves `cut` back to the nearest boundary that does not split a tool-call group. */
  #boundaryAtOrBefore(canonical: readonly Message[], cut: number): number {
    while (cut > this.#view.start && canonical[cut]?.role === "tool") cut--;
    return cut;
  }

  /** In overflow rescue: completed rounds of the current turn may fold, the last two stay. */
  #overflowCut(canonical: readonly Message[], turnStart: number): number {
    const rounds: number[] = [];
    for (let i = Math.max(turnStart, this.#view.start); i < canonical.length; i++) {
      if (canonical[i].role === "assistant") rounds.push(i);
    }
    return rounds.length > 2 ? rounds[rounds.length - 2] : this.#view.start;
  }

  async #summarize(canonical: readonly Message[], run: MaintenanceRun): Promise<Attempt> {
    const { cause, signal, turnStart, focus } = run;
    const start = this.#view.start;
    let cut = this.#keepCut(canonical);
    if (cause === "overflow" && turnStart !== undefined) {
      cut = Math.max(cut, this.#overflowCut(canonical, turnStart));
    }
    if (cause === "manual") {
      cut = canonical.length;
    } else {
      // Keep at least the newest unit verbatim, however large it is.
      cut = Math.min(cut, this.#boundaryAtOrBefore(canonical, canonical.length - 1));
    }
    cut = this.#boundaryAtOrBefore(canonical, cut);
    const room = this.#o.contextWindow - SUMMARY_MAX_TOKENS - this.#margin();
    const live = this.view(canonical);
    const instruction: Message = { role: "user", content: compactionInstruction(focus) };

    let outcome: SummaryOutcome | undefined;
    for (let replan = 0; replan <= MAX_SUMMARY_REPLANS; replan++) {
      // Shrink the selected prefix until the summary request plans under the window.
      while (cut > start) {
        const prefix = live.slice(0, this.#view.viewIndexOf(canonical, cut));
        if (this.estimate([...prefix, instruction]) <= room) break;
        cut = this.#boundaryAtOrBefore(canonical, cut - 1);
      }
      if (cut <= start) return { ok: false, reason: "no old prefix fits a summary request" };
      const prefix = live.slice(0, this.#view.viewIndexOf(canonical, cut));
      const messages = [...prefix, instruction];
      const raw = this.#raw(messages);
      outcome = await requestSummary(this.#o.provider, this.#request(messages, this.#o.tools), {
        signal,
        timeoutMs: this.#o.summaryTimeoutMs ?? 180_000,
      });
      if (outcome.usage) this.observe(raw, outcome.usage.promptTokens);
      if (outcome.ok || !outcome.overflow) break;
      if (outcome.statedPromptTokens) this.observe(raw, outcome.statedPromptTokens);
      if (replan === MAX_SUMMARY_REPLANS) {
        // Last resort: the same prefix as one bounded transcript, without tool schemas.
        const bounded: Message = { role: "user", content: boundedTranscript(prefix) };
        outcome = await requestSummary(
          this.#o.provider,
          this.#request([bounded, instruction], []),
          {
            signal,
            timeoutMs: this.#o.summaryTimeoutMs ?? 180_000,
          },
        );
        break;
      }
      cut = this.#boundaryAtOrBefore(canonical, cut - 1);
    }
    if (!outcome || !outcome.ok) return { ok: false, reason: outcome?.reason ?? "no summary" };

    // A candidate must be strictly smaller than what it replaces.
    const replaced = live.slice(0, this.#view.viewIndexOf(canonical, cut));
    const record = this.#view.record;
    const candidate: ProjectionRecord = {
      generation: record.generation + 1,
      summarizedUpTo: cut,
      summary: outcome.text,
      pruned: record.pruned.filter((i) => i >= cut),
    };
    const head: Message = { role: "user", content: headText(candidate, 0) ?? "" };
    const replacedTokens = replaced.reduce((sum, m) => sum + this.#o.estimator.rawMessage(m), 0);
    if (this.#o.estimator.rawMessage(head) >= replacedTokens) {
      return { ok: false, reason: "the summary was not smaller than what it would replace" };
    }
    this.#install(candidate);
    return { ok: true };
  }

  #request(messages: readonly Message[], tools: readonly ToolSchema[]): ProviderRequest {
    return {
      model: this.#o.model,
      system: this.#o.system,
      messages,
      tools,
      temperature: this.#o.temperature,
      maxOutputTokens: SUMMARY_MAX_TOKENS,
    };
  }

  /**
   * The lossy `truncate` projection: blank the oldest tool results, then drop the oldest
   * replay units, until the view is under the trigger. Throws when even that is not enough.
   */
  #truncateOrThrow(
    canonical: readonly Message[],
    cause: CompactionReport["cause"],
    reports: CompactionReport[],
  ): Prepared {
    const trigger = this.triggerTokens;
    const record = this.#view.record;
    const before = this.estimate(this.view(canonical));
    const blanked = new Set(record.truncated?.blanked ?? []);
    let droppedUpTo = Math.max(record.truncated?.droppedUpTo ?? 0, record.summarizedUpTo);
    const build = (): ProjectionRecord => ({
      generation: record.generation + 1,
      summarizedUpTo: record.summarizedUpTo,
      ...(record.summary !== undefined ? { summary: record.summary } : {}),
      pruned: record.pruned.filter((i) => i >= droppedUpTo && !blanked.has(i)),
      truncated: {
        blanked: [...blanked].filter((i) => i >= droppedUpTo).sort((a, b) => a - b),
        droppedUpTo,
      },
    });
    const fits = () => this.estimate(new ProjectionView(build()).view(canonical)) < trigger;

    // Oldest tool results first; the newest result stays so the model sees what it just did.
    const lastTool = canonical.findLastIndex((m) => m.role === "tool");
    for (let i = droppedUpTo; i < canonical.length && !fits(); i++) {
      if (canonical[i].role === "tool" && i !== lastTool) blanked.add(i);
    }
    // Then whole replay units (a user turn and everything up to the next user turn), never the
    // last one: the current request must survive.
    const lastUser = canonical.findLastIndex((m) => m.role === "user");
    while (!fits()) {
      let next = droppedUpTo + 1;
      while (next < canonical.length && canonical[next].role !== "user") next++;
      if (next > lastUser || next >= canonical.length) {
        throw new CompactionRequiredError(
          `the conversation does not fit the ${this.#o.contextWindow}-token window even after ` +
            "summarizing and truncating; start a new session (/new) or use a model with a larger window",
        );
      }
      droppedUpTo = next;
    }
    this.#install(build());
    const messages = this.view(canonical);
    const after = this.estimate(messages);
    reports.push(this.#report("truncated", cause, { before, after }));
    return { messages, rawTokens: this.#raw(messages), reports };
  }
}
