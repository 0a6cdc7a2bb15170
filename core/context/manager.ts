/**
 * Cache-first context management (spec §3.6). Below the trigger the view is the canonical
 * transcript plus the current checkpoint, and only ever grows at the end. Crossing the trigger
 * starts one single-flight maintenance transaction: prune long tool results; if pressure
 * remains, summarize the old prefix with a request that reuses the bytes of the last request
 * sent; if no summary can be formed and the view is at the hard limit, fall back to the lossy
 * `truncate` projection; only then report that compaction is required.
 *
 * Every step costs O(view): token counts are memoized per message, derived (pruned, blanked)
 * messages are made once, and the planning loops walk running sums instead of rebuilding views.
 *
 * @module
 */
import { ReasonixError } from "../../errors.ts";
import type { Message, Provider, ProviderRequest, ToolSchema } from "../../providers/types.ts";
import type { MaintenanceFailure, ProjectionRecord } from "../store/transcript.ts";
import type { TokenEstimator } from "./estimator.ts";
import { DerivedMessages, emptyProjection, headText, ProjectionView } from "./projection.ts";
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
/** Summary requests one manual `/compact` may chain over a view too large for one. */
export const MAX_MANUAL_CHUNKS = 16;

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
  /** The context window learned from the provider's overflow error, when this step learned one. */
  learnedWindow?: number;
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
  /** The window the configuration declares (or a smaller one learned earlier). */
  contextWindow: number;
  /** `agent.compact_ratio`. */
  compactRatio: number;
  estimator: TokenEstimator;
  persist?: ContextPersistence;
  /** Restored state of a resumed session. */
  projection?: ProjectionRecord;
  failures?: MaintenanceFailure[];
  summaryTimeoutMs?: number;
  /**
   * Told when a provider's overflow error states a window smaller than the current one, so
   * the host can remember it for the provider and model.
   */
  onWindowLearned?(tokens: number): void;
  /** The session's cache-break meter (`CacheMeter`), which sees every summary request too. */
  cacheMeter?: { observe(request: ProviderRequest, opts: { planned: "summary" }): unknown };
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
  /** The canonical index the installed summary covers up to. */
  cut?: number;
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
  readonly #derived = new DerivedMessages();
  #window: number;
  #view: ProjectionView;
  /** The projection of the last request handed out: the bytes the provider may have cached. */
  #sent: ProjectionView;
  #failures: MaintenanceFailure[];
  #busy: Promise<unknown> = Promise.resolve();
  #base: number | undefined;
  /** The last view built, with the canonical messages it covers; see {@link #viewed}. */
  #lastView:
    | { view: ProjectionView; seen: Message[]; messages: Message[]; raw: number }
    | undefined;

  constructor(opts: ContextManagerOptions) {
    this.#o = opts;
    this.#window = opts.contextWindow;
    this.#view = new ProjectionView(opts.projection ?? emptyProjection(), this.#derived);
    this.#sent = this.#view;
    this.#failures = [...(opts.failures ?? [])];
  }

  /** The window maintenance plans for: the configured one, or the smaller one learned. */
  get contextWindow(): number {
    return this.#window;
  }

  /** `floor(context_window × compact_ratio)`. */
  get triggerTokens(): number {
    return Math.floor(this.#window * this.#o.compactRatio);
  }

  /** The window minus the planning margin: past this a request cannot be sent as is. */
  get hardLimit(): number {
    return this.#window - this.#margin();
  }

  /** How much a view must grow after a failed or forced attempt before paying again (5%). */
  get growthStep(): number {
    return Math.ceil(this.#window * MARGIN_RATIO);
  }

  /** The installed projection. */
  get projection(): ProjectionRecord {
    return this.#view.record;
  }

  #margin(): number {
    return Math.max(MIN_MARGIN_TOKENS, Math.ceil(this.#window * MARGIN_RATIO));
  }

  /**
   * Adopts a window smaller than the current one (stated by the provider). Returns whether it
   * changed anything.
   */
  learnWindow(tokens: number): boolean {
    if (!Number.isSafeInteger(tokens) || tokens <= 0 || tokens >= this.#window) return false;
    this.#window = tokens;
    this.#o.onWindowLearned?.(tokens);
    return true;
  }

  /** The provider-visible messages now. */
  view(canonical: readonly Message[]): Message[] {
    return [...this.#viewed(canonical).messages];
  }

  /**
   * The view and its raw message tokens, extended from the last one while the projection
   * holds and the transcript only grew: a turn costs its new messages (and one pointer
   * comparison per earlier message), not a rebuild and re-count of the history.
   */
  #viewed(canonical: readonly Message[]): { messages: readonly Message[]; raw: number } {
    const last = this.#lastView;
    const view = this.#view;
    if (
      last && last.view === view && last.seen.length > view.start + 1 &&
      last.seen.length <= canonical.length && startsWith(canonical, last.seen)
    ) {
      for (let i = last.seen.length; i < canonical.length; i++) {
        const m = view.message(canonical, i);
        last.seen.push(canonical[i]);
        last.messages.push(m);
        last.raw += this.#o.estimator.rawMessage(m);
      }
      return last;
    }
    const messages = view.view(canonical);
    let raw = 0;
    for (const m of messages) raw += this.#o.estimator.rawMessage(m);
    this.#lastView = { view, seen: [...canonical], messages, raw };
    return this.#lastView;
  }

  /** Raw tokens of the system prompt and tool schemas, which do not change. */
  #baseRaw(): number {
    return this.#base ??= this.#o.estimator.rawRequest(this.#o.system, this.#o.tools, []);
  }

  #raw(messages: readonly Message[]): number {
    let tokens = this.#baseRaw();
    for (const m of messages) tokens += this.#o.estimator.rawMessage(m);
    return tokens;
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

  /** Marks what a prepared request carries as sent. */
  #handOut(prepared: Prepared): Prepared {
    this.#sent = this.#view;
    return prepared;
  }

  /**
   * Returns the messages for the next request. Below the trigger nothing is rewritten and
   * nothing is written.
   */
  prepare(canonical: readonly Message[], opts: { signal: AbortSignal }): Promise<Prepared> {
    const viewed = this.#viewed(canonical);
    const messages = [...viewed.messages];
    const rawTokens = this.#baseRaw() + viewed.raw;
    if (this.#o.estimator.calibrated(rawTokens) < this.triggerTokens) {
      return Promise.resolve(this.#handOut({ messages, rawTokens, reports: [] }));
    }
    return this.#single(async () =>
      this.#handOut(await this.#maintain(canonical, { cause: "pressure", signal: opts.signal }))
    );
  }

  /**
   * After the provider rejected a request as too long: learn the window it stated, then one
   * summary (which may fold completed rounds of the current turn, keeping the last two), else
   * the truncate projection. Throws `CompactionRequiredError` when nothing fits.
   */
  rescueOverflow(
    canonical: readonly Message[],
    opts: {
      signal: AbortSignal;
      turnStart: number;
      /** The prompt size the provider's error stated. */
      statedPromptTokens?: number;
      /** The context window the provider's error stated. */
      statedLimit?: number;
    },
  ): Promise<Prepared> {
    return this.#single(async () => {
      const current = this.view(canonical);
      if (opts.statedPromptTokens) this.observe(this.#raw(current), opts.statedPromptTokens);
      const learned = opts.statedLimit !== undefined && this.learnWindow(opts.statedLimit);
      const prepared = await this.#maintain(canonical, {
        cause: "overflow",
        signal: opts.signal,
        turnStart: opts.turnStart,
      });
      if (learned) {
        const first = prepared.reports[0];
        if (first) first.learnedWindow = this.#window;
      }
      return this.#handOut(prepared);
    });
  }

  /**
   * `/compact`: summarize now, regardless of the trigger and of earlier failures. A view too
   * large for one summary request is summarized in chunks, each merging the previous one.
   */
  compactNow(
    canonical: readonly Message[],
    opts: { signal: AbortSignal; instructions?: string },
  ): Promise<Prepared> {
    return this.#single(async () =>
      this.#handOut(
        await this.#maintain(canonical, {
          cause: "manual",
          signal: opts.signal,
          focus: opts.instructions,
        }),
      )
    );
  }

  #install(record: ProjectionRecord): void {
    this.#view = new ProjectionView(record, this.#derived);
    this.#o.persist?.projection(record);
  }

  /** Whether an automatic attempt failed in this generation and the view has not grown 5% since. */
  #paused(estimate: number): boolean {
    const generation = this.#view.record.generation;
    const last = this.#failures.findLast((f) => f.generation === generation);
    if (!last) return false;
    return estimate < last.atTokens + this.growthStep;
  }

  async #maintain(canonical: readonly Message[], run: MaintenanceRun): Promise<Prepared> {
    const { cause } = run;
    const reports: CompactionReport[] = [];
    const trigger = this.triggerTokens;
    let messages = this.view(canonical);
    let estimate = this.estimate(messages);
    const done = (): Prepared => ({ messages, rawTokens: this.#raw(messages), reports });

    if (cause === "pressure" && estimate < trigger) return done();

    // 1. Prune long tool results (cheap, no model call).
    if (cause !== "manual") {
      const pruned = this.#prunable(canonical);
      if (pruned.length) {
        const before = estimate;
        const record = this.#view.record;
        this.#install({ ...record, pruned: [...record.pruned, ...pruned].sort((a, b) => a - b) });
        messages = this.view(canonical);
        estimate = this.estimate(messages);
        reports.push(this.#report("pruned", cause, { before, after: estimate }));
        if (estimate < trigger) return done();
      }
    }

    // A failed attempt of this generation is not paid again until the maintained view grew.
    if (cause === "pressure" && this.#paused(estimate)) {
      if (estimate < this.hardLimit) return done();
      return this.#truncateOrThrow(canonical, cause, reports);
    }

    // 2. Summaries.
    const limit = cause === "pressure"
      ? MAX_PRESSURE_SUMMARIES
      : cause === "manual"
      ? MAX_MANUAL_CHUNKS
      : 1;
    let failure: string | undefined;
    for (let n = 0; n < limit; n++) {
      const before = estimate;
      const attempt = await this.#summarize(canonical, run);
      if (!attempt.ok) {
        // A manual chain that already installed a chunk has done what it could.
        if (!(cause === "manual" && n > 0)) failure = attempt.reason;
        break;
      }
      messages = this.view(canonical);
      estimate = this.estimate(messages);
      reports.push(this.#report("summarized", cause, { before, after: estimate }));
      if (cause === "manual") {
        // Chunks go on until the whole history is one checkpoint.
        if ((attempt.cut ?? canonical.length) >= canonical.length) return done();
        continue;
      }
      if (estimate < trigger) return done();
    }
    if (failure === undefined) {
      if (cause === "overflow" && estimate >= this.hardLimit) {
        return this.#truncateOrThrow(canonical, cause, reports);
      }
      return done();
    }

    const failed = this.#report("failed", cause, {
      before: estimate,
      after: estimate,
      reason: failure,
    });
    reports.push(failed);
    if (cause !== "manual") {
      const record: MaintenanceFailure = {
        generation: this.#view.record.generation,
        atTokens: estimate,
        status: "blocked",
        reason: failure,
      };
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
    const view = this.#view;
    const out: number[] = [];
    for (let i = view.start; i < canonical.length; i++) {
      const m = canonical[i];
      if (
        m.role === "tool" && !view.isPruned(i) && !view.isBlanked(i) && needsPrune(m.content)
      ) {
        out.push(i);
      }
    }
    return out;
  }

  /** The latest cut that keeps at least the most recent 16% of the window verbatim. */
  #keepCut(canonical: readonly Message[]): number {
    const keep = Math.floor(this.#window * KEEP_RECENT_RATIO);
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

  /**
   * The projection a summary request takes its prefix from: the one last sent when only
   * prunes or blanks happened since (its bytes are what the provider cached), else the current.
   */
  #summarySource(): ProjectionView {
    const sent = this.#sent.record;
    const now = this.#view.record;
    const same = sent.summarizedUpTo === now.summarizedUpTo && sent.summary === now.summary &&
      (sent.truncated?.droppedUpTo ?? 0) === (now.truncated?.droppedUpTo ?? 0);
    return same ? this.#sent : this.#view;
  }

  /** Raw tokens of the whole view of `projection`. */
  #viewRaw(canonical: readonly Message[], projection: ProjectionView): number {
    return this.#raw(projection.view(canonical));
  }

  async #summarize(canonical: readonly Message[], run: MaintenanceRun): Promise<Attempt> {
    const { cause, signal, turnStart, focus } = run;
    const source = this.#summarySource();
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
    const room = this.#window - SUMMARY_MAX_TOKENS - this.#margin();
    const live = source.view(canonical);
    const instruction: Message = { role: "user", content: compactionInstruction(focus) };
    // Running raw sums over the live view: sums[k] = system + tools + live[0, k).
    const sums = new Array<number>(live.length + 1);
    sums[0] = this.#baseRaw();
    for (let k = 0; k < live.length; k++) {
      sums[k + 1] = sums[k] + this.#o.estimator.rawMessage(live[k]);
    }
    const instructionRaw = this.#o.estimator.rawMessage(instruction);
    const planned = (at: number) =>
      this.#o.estimator.calibrated(sums[source.viewIndexOf(canonical, at)] + instructionRaw);

    let outcome: SummaryOutcome | undefined;
    for (let replan = 0; replan <= MAX_SUMMARY_REPLANS; replan++) {
      // Shrink the selected prefix until the summary request plans under the window.
      while (cut > start && planned(cut) > room) cut = this.#boundaryAtOrBefore(canonical, cut - 1);
      if (cut <= start) return { ok: false, reason: "no old prefix fits a summary request" };
      const prefix = live.slice(0, source.viewIndexOf(canonical, cut));
      const messages = [...prefix, instruction];
      const raw = sums[prefix.length] + instructionRaw;
      outcome = await this.#sendSummary(this.#request(messages, this.#o.tools), signal);
      if (outcome.usage) this.observe(raw, outcome.usage.promptTokens);
      if (outcome.ok || !outcome.overflow) break;
      if (outcome.statedPromptTokens) this.observe(raw, outcome.statedPromptTokens);
      if (outcome.statedLimit !== undefined) this.learnWindow(outcome.statedLimit);
      if (replan === MAX_SUMMARY_REPLANS) {
        // Last resort: the same prefix as one bounded transcript, without tool schemas.
        const bounded: Message = { role: "user", content: boundedTranscript(prefix) };
        outcome = await this.#sendSummary(this.#request([bounded, instruction], []), signal);
        break;
      }
      cut = this.#boundaryAtOrBefore(canonical, cut - 1);
    }
    if (!outcome || !outcome.ok) return { ok: false, reason: outcome?.reason ?? "no summary" };

    // The candidate keeps what maintenance did after the cut: prunes and truncation blanks.
    const record = this.#view.record;
    const blanked = (record.truncated?.blanked ?? []).filter((i) => i >= cut);
    const candidate: ProjectionRecord = {
      generation: record.generation + 1,
      summarizedUpTo: cut,
      summary: outcome.text,
      pruned: record.pruned.filter((i) => i >= cut),
      ...(blanked.length ? { truncated: { blanked, droppedUpTo: cut } } : {}),
    };
    // It must be strictly smaller than the view it replaces, as a whole.
    const next = new ProjectionView(candidate, this.#derived);
    if (this.#viewRaw(canonical, next) >= this.#viewRaw(canonical, this.#view)) {
      return { ok: false, reason: "the summary was not smaller than what it would replace" };
    }
    this.#install(candidate);
    return { ok: true, cut };
  }

  /** Sends one summary request, measured by the session's cache meter like any other. */
  #sendSummary(request: ProviderRequest, signal: AbortSignal): Promise<SummaryOutcome> {
    this.#o.cacheMeter?.observe(request, { planned: "summary" });
    return requestSummary(this.#o.provider, request, {
      signal,
      timeoutMs: this.#o.summaryTimeoutMs ?? 180_000,
    });
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
   * One pass over the view with a running token count.
   */
  #truncateOrThrow(
    canonical: readonly Message[],
    cause: CompactionReport["cause"],
    reports: CompactionReport[],
  ): Prepared {
    const trigger = this.triggerTokens;
    const est = this.#o.estimator;
    const view = this.#view;
    const record = view.record;
    const before = this.estimate(this.view(canonical));
    const blanked = new Set(record.truncated?.blanked ?? []);
    let droppedUpTo = Math.max(record.truncated?.droppedUpTo ?? 0, record.summarizedUpTo);
    const form = (i: number): Message =>
      blanked.has(i) ? this.#derived.blanked(canonical[i]) : view.message(canonical, i);

    // body = raw tokens of the view messages from droppedUpTo on, without the head.
    let body = 0;
    for (let i = droppedUpTo; i < canonical.length; i++) body += est.rawMessage(form(i));
    // The head (checkpoint and drop note) replaces or precedes the first kept message.
    // The same head messages the installed view will show, so their estimates carry over.
    const headDelta = (): number => {
      const text = headText(record, Math.max(0, droppedUpTo - record.summarizedUpTo));
      if (text === undefined) return 0;
      const first = canonical[droppedUpTo];
      if (first?.role === "user") {
        return est.rawMessage(this.#derived.folded(first, text)) - est.rawMessage(first);
      }
      return est.rawMessage(this.#derived.standalone(text));
    };
    let head = headDelta();
    const fits = () => est.calibrated(this.#baseRaw() + body + head) < trigger;

    // Oldest tool results first; the newest result stays so the model sees what it just did.
    const lastTool = canonical.findLastIndex((m) => m.role === "tool");
    for (let i = droppedUpTo; i < canonical.length && !fits(); i++) {
      if (canonical[i].role !== "tool" || i === lastTool || blanked.has(i)) continue;
      body -= est.rawMessage(form(i));
      blanked.add(i);
      body += est.rawMessage(form(i));
    }
    // Then whole replay units (a user turn and everything up to the next user turn), never the
    // last one: the current request must survive.
    const lastUser = canonical.findLastIndex((m) => m.role === "user");
    while (!fits()) {
      let next = droppedUpTo + 1;
      while (next < canonical.length && canonical[next].role !== "user") next++;
      if (next > lastUser || next >= canonical.length) {
        throw new CompactionRequiredError(
          `the conversation does not fit the ${this.#window}-token window even after ` +
            "summarizing and truncating; start a new session (/new) or use a model with a larger window",
        );
      }
      for (let i = droppedUpTo; i < next; i++) body -= est.rawMessage(form(i));
      droppedUpTo = next;
      head = headDelta();
    }
    this.#install({
      generation: record.generation,
      summarizedUpTo: record.summarizedUpTo,
      ...(record.summary !== undefined ? { summary: record.summary } : {}),
      pruned: record.pruned.filter((i) => i >= droppedUpTo && !blanked.has(i)),
      truncated: {
        blanked: [...blanked].filter((i) => i >= droppedUpTo).sort((a, b) => a - b),
        droppedUpTo,
      },
    });
    const messages = this.view(canonical);
    const after = this.estimate(messages);
    reports.push(this.#report("truncated", cause, { before, after }));
    return { messages, rawTokens: this.#raw(messages), reports };
  }
}

/** Whether `messages` begins with `prefix`, object for object. */
function startsWith(messages: readonly Message[], prefix: readonly Message[]): boolean {
  for (let i = 0; i < prefix.length; i++) if (messages[i] !== prefix[i]) return false;
  return true;
}
