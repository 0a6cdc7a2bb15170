/**
 * The permission policy (spec §3.7): one call in, `allow | ask | deny` out. Precedence is
 * deny > ask > allow > fallback; readers fall back to allow, writers to the preset.
 *
 * @module
 */
import type { PermissionDecision } from "../agent/events.ts";
import type { CallKind, Preset } from "./presets.ts";
import { dirname, join } from "node:path";
import { isWithin } from "../../tools/paths.ts";
import { controlFileOf } from "./control_files.ts";
import {
  type BashCommandRule,
  bashRuleCovers,
  bashRuleMatches,
  pathMatches,
  pathRuleReads,
  type Rule,
  ruleNameCovers,
  toolRuleCovers,
} from "./rules.ts";
import {
  analyzeShell,
  commandText,
  HIDING_FEATURES,
  type ShellAnalysis,
  type SimpleCommand,
} from "./shell_parse.ts";

/** One call as the policy sees it. Paths are canonical and absolute. */
export interface PolicyCall {
  /** Tool name as the model called it. */
  tool: string;
  /** Rule family (`access.rule`, else the tool name). */
  family: string;
  readOnly: boolean;
  /** Shell command, for `Bash` rules. */
  command?: string;
  reads: readonly string[];
  writes: readonly string[];
  /**
   * Canonical trees the workspace's control entries really point at (a symlinked `.mcp.json`,
   * `core.hooksPath`, …), from `controlTargets`; writes into them are control-file writes.
   */
  controlTargets?: readonly string[];
}

/** Which list decided; `control` is the control-file rule, which no allow rule lifts. */
export type VerdictSource = "deny" | "ask" | "allow" | "preset" | "control";

/** The policy's answer. */
export interface Verdict {
  decision: PermissionDecision;
  kind: CallKind;
  source: VerdictSource;
  /** The rule(s) that decided, as written, or a description of the fallback. */
  rule?: string;
  /** For `bash`: simple commands no allow rule covered, as text. */
  uncovered?: string[];
  /** For `bash`: why prefix rules could not be used (compound syntax, substitution …). */
  unanalysable?: string;
  /** For deny/ask caused by something other than a plain rule match. */
  note?: string;
  /** For `control`: the control files the call writes, as canonical paths. */
  controlFiles?: string[];
}

/** Rules by list. */
export interface RuleSet {
  allow: readonly Rule[];
  ask: readonly Rule[];
  deny: readonly Rule[];
}

/** Options of {@linkcode Policy}. */
export interface PolicyOptions {
  preset: Preset;
  rules: RuleSet;
  /** Canonical workspace root; relative path rules are relative to it. */
  workspaceRoot: string;
  /**
   * Whether the platform can sandbox `bash`. Without it, presets that run commands without
   * asking ask instead, and the read-only preset refuses commands.
   */
  shellSandbox: boolean;
}

/**
 * Decides calls from rules and a preset. No I/O; the only state is the preset, which an
 * interactive session may switch (`Permissions.setMode`).
 */
export class Policy {
  readonly rules: RuleSet;
  #preset: Preset;
  readonly #root: string;
  readonly #shellSandbox: boolean;

  constructor(opts: PolicyOptions) {
    this.#preset = opts.preset;
    this.rules = opts.rules;
    this.#root = opts.workspaceRoot;
    this.#shellSandbox = opts.shellSandbox;
  }

  /** The active preset. */
  get preset(): Preset {
    return this.#preset;
  }

  /** Answers later calls with `preset`; use `Permissions.setMode`, which also moves the shell. */
  usePreset(preset: Preset): void {
    this.#preset = preset;
  }

  /** What kind of call this is, for the preset fallback. */
  kindOf(call: PolicyCall): CallKind {
    if (call.command !== undefined) return "bash";
    if (call.readOnly) return "read";
    if (call.writes.length > 0 || call.family === "Edit" || call.family === "Write") return "edit";
    if (call.tool === "use_capability" || call.family.startsWith("mcp__")) return "capability";
    return "other";
  }

  /** Decides one call. */
  decide(call: PolicyCall): Verdict {
    const kind = this.kindOf(call);
    const shell = call.command !== undefined ? analyzeShell(call.command) : undefined;

    const denied = this.#firstMatch(this.rules.deny, call, shell);
    if (denied) return { decision: "deny", kind, source: "deny", rule: denied.text };

    // Deny rules fail closed: a command whose effect cannot be decided might run what a Bash
    // deny rule forbids, so any such rule denies it.
    const why = shell && undecidable(shell);
    const guard = why ? this.rules.deny.find(isBashCommandRule) : undefined;
    if (why && guard) {
      return {
        decision: "deny",
        kind,
        source: "deny",
        rule: guard.text,
        note: `${why}, so the deny rule "${guard.text}" cannot be checked against what it runs`,
      };
    }

    if (this.preset.strict && kind !== "read" && kind !== "bash") {
      return {
        decision: "deny",
        kind,
        source: "preset",
        rule: `${this.preset.name} mode`,
        note: `the ${this.preset.name} permission mode never runs writers`,
      };
    }
    if (this.preset.strict && kind === "bash") {
      return {
        decision: "deny",
        kind,
        source: "preset",
        rule: `${this.preset.name} mode`,
        note: `the ${this.preset.name} permission mode runs no commands (the process gives up ` +
          "its right to start programs); use --permission-mode ask or auto to run them",
      };
    }

    const control = this.#controlWrites(call);
    if (control.length) {
      return {
        decision: "ask",
        kind,
        source: "control",
        rule: "control files",
        note: `it writes the control file${control.length === 1 ? "" : "s"} ${
          control.map((c) => c.entry).join(", ")
        }, which Reasonix or git act on at the next start`,
        controlFiles: control.map((c) => c.path),
      };
    }

    const askGuard = why ? this.rules.ask.find(isBashCommandRule) : undefined;
    if (why && askGuard) {
      // Likewise an ask rule: what it would have asked about may be hidden.
      return {
        decision: "ask",
        kind,
        source: "ask",
        rule: askGuard.text,
        note: `${why}, so the ask rule "${askGuard.text}" cannot be checked against what it runs`,
      };
    }

    const asked = this.#firstMatch(this.rules.ask, call, shell);
    if (asked) return { decision: "ask", kind, source: "ask", rule: asked.text };

    if (shell) {
      const allowed = this.#bashAllowed(call.command!, shell);
      if (allowed.rule) return { decision: "allow", kind, source: "allow", rule: allowed.rule };
      return {
        ...this.#fallback(kind),
        uncovered: allowed.uncovered,
        unanalysable: allowed.unanalysable,
      };
    }
    const allowedBy = this.#allowedBy(call);
    if (allowedBy) return { decision: "allow", kind, source: "allow", rule: allowedBy };
    return this.#fallback(kind);
  }

  /**
   * The control files a call writes. Outside modes without write confinement (`yolo`) these
   * always ask: allow rules, accept-edits and auto cannot approve planting persistence.
   */
  #controlWrites(call: PolicyCall): { path: string; entry: string }[] {
    if (!this.preset.confineWrites) return [];
    const out: { path: string; entry: string }[] = [];
    for (const path of call.writes) {
      const entry = controlFileOf(path, call.controlTargets);
      if (entry !== undefined) out.push({ path, entry });
    }
    return out;
  }

  /**
   * The deny or ask path rule (`Read(...)`, or the reader family's own rules) that keeps a
   * reader of `family` (`Read`, `Grep`, `Glob`, `LS`) away from the canonical `path`, or from a
   * directory above it. Used per file by searches and listings, and for the trees of moves.
   */
  readRuleFor(
    path: string,
    family: string,
  ): { rule: string; decision: "deny" | "ask" } | undefined {
    for (const [decision, rules] of [["deny", this.rules.deny], ["ask", this.rules.ask]] as const) {
      for (const rule of rules) {
        if (rule.kind !== "path" || !pathRuleReads(rule)) continue;
        if (!ruleNameCovers(rule.name, family, family)) continue;
        if (pathOrAncestorMatches(rule, path, this.#root)) return { rule: rule.text, decision };
      }
    }
    return undefined;
  }

  /**
   * The directories the read deny and ask path rules are anchored at: each pattern's leading
   * glob-free segments, as canonical absolute paths (`Read(config/secret.env)` → the workspace's
   * `config/secret.env`, `Read(**\/.env)` → the workspace root). Moving one of them, or a
   * directory above one, would carry what the rule protects to a name it does not match.
   */
  readRuleAnchors(): { rule: string; anchor: string }[] {
    const out: { rule: string; anchor: string }[] = [];
    for (const rule of [...this.rules.deny, ...this.rules.ask]) {
      if (rule.kind !== "path" || !pathRuleReads(rule)) continue;
      const literal: string[] = [];
      for (const segment of rule.pattern.split("/")) {
        if (/[*?[\]{}()!+@\\]/.test(segment)) break;
        literal.push(segment);
      }
      const prefix = literal.join("/");
      const anchor = rule.absolute ? (prefix === "" ? "/" : prefix) : join(this.#root, prefix);
      out.push({ rule: rule.text, anchor });
    }
    return out;
  }

  /** Whether any deny or ask path rule looks at reads. */
  hasReadRules(): boolean {
    return [...this.rules.deny, ...this.rules.ask].some((r) =>
      r.kind === "path" && pathRuleReads(r)
    );
  }

  #fallback(kind: CallKind): Verdict {
    if (kind === "read") {
      return { decision: "allow", kind, source: "preset", rule: "read-only tool" };
    }
    let decision = this.preset.fallback[kind];
    if (
      kind === "bash" && decision === "allow" && !this.#shellSandbox &&
      this.preset.sandbox !== "none"
    ) {
      decision = "ask";
    }
    return { decision, kind, source: "preset", rule: `${this.preset.name} mode` };
  }

  /** The first deny/ask rule that matches any part of the call. */
  #firstMatch(rules: readonly Rule[], call: PolicyCall, shell?: ShellAnalysis): Rule | undefined {
    return rules.find((rule) => this.#matchesAny(rule, call, shell));
  }

  #matchesAny(rule: Rule, call: PolicyCall, shell?: ShellAnalysis): boolean {
    switch (rule.kind) {
      case "tool":
        return toolRuleCovers(rule, call.family, call.tool);
      case "bash_literal":
        return call.command !== undefined && call.command.trim() === rule.literal.trim();
      case "bash_prefix":
      case "bash_exact":
      case "bash_glob":
        if (call.command === undefined || !shell) return false;
        if (rule.kind === "bash_glob" && rule.pattern.test(call.command.trim())) return true;
        return shell.commands.some((cmd) => bashRuleCovers(rule, cmd.words));
      case "path": {
        // `Read(...)` covers every declared read, also of writers that read (edit_file) or
        // carry (move_file) a file; the other families only their own tools.
        const reads = pathRuleReads(rule);
        const covers = ruleNameCovers(rule.name, call.family, call.tool) ||
          (rule.name === "Read" && call.reads.length > 0);
        if (!covers) return false;
        const targets = reads ? call.reads : call.writes;
        // A deny or ask rule that matches a directory covers everything inside it.
        return targets.some((p) => pathOrAncestorMatches(rule, p, this.#root));
      }
      case "specifier":
        return ruleNameCovers(rule.name, call.family, call.tool) &&
          call.command !== undefined && rule.pattern.test(call.command.trim());
    }
  }

  /** The allow rule covering a non-bash call, all of its paths included. */
  #allowedBy(call: PolicyCall): string | undefined {
    for (const rule of this.rules.allow) {
      switch (rule.kind) {
        case "tool":
          if (toolRuleCovers(rule, call.family, call.tool)) return rule.text;
          break;
        case "path": {
          if (!ruleNameCovers(rule.name, call.family, call.tool)) break;
          const targets = pathRuleReads(rule) ? call.reads : call.writes;
          if (targets.length && targets.every((p) => pathMatches(rule, p, this.#root))) {
            return rule.text;
          }
          break;
        }
        case "specifier":
          if (
            ruleNameCovers(rule.name, call.family, call.tool) && call.command !== undefined &&
            rule.pattern.test(call.command.trim())
          ) return rule.text;
          break;
        default:
          break;
      }
    }
    return undefined;
  }

  /**
   * Allow rules approve a command only when every simple command it runs is approved, and
   * the text is nothing but a list of simple commands: no substitution, subshell, group,
   * here-document, control keyword, assignment or write redirection can ride along.
   */
  #bashAllowed(
    command: string,
    shell: ShellAnalysis,
  ): { rule?: string; uncovered?: string[]; unanalysable?: string } {
    const bare = this.rules.allow.find((r) =>
      r.kind === "tool" && toolRuleCovers(r, "Bash", "bash")
    );
    if (bare) return { rule: bare.text };
    const literal = this.rules.allow.find((r) =>
      r.kind === "bash_literal" && r.literal.trim() === command.trim()
    );
    if (literal) return { rule: literal.text };

    const top = shell.commands.filter((c) => c.depth === 0 && !c.derived);
    const why = unanalysable(shell, top);
    const prefixRules = this.rules.allow.filter(isBashCommandRule);
    const used: string[] = [];
    const uncovered: string[] = [];
    // The commands wrappers run (`find -exec rm`, `xargs rm`, `timeout 5 rm`) need a rule of
    // their own; a wrapper that only changes how its command runs needs none.
    for (const cmd of shell.commands.filter((c) => c.depth === 0)) {
      const rule = prefixRules.find((r) => bashRuleMatches(r, cmd.words, true));
      if (rule) {
        if (!used.includes(rule.text)) used.push(rule.text);
      } else if (TRANSPARENT_WRAPPERS.has(programName(cmd))) {
        continue;
      } else {
        uncovered.push(commandText(cmd) || "(redirection only)");
      }
    }
    if (why) return { uncovered, unanalysable: why };
    if (uncovered.length || used.length === 0) return { uncovered };
    return { rule: used.join(", ") };
  }
}

/**
 * Whether a path rule matches `path` or one of its ancestors (inside the workspace, for
 * relative rules): how deny and ask rules read, so `Read(secrets)` also covers
 * `secrets/key` and `Read(**\/.env)` a directory named `.env` with all it holds.
 */
export function pathOrAncestorMatches(
  rule: Extract<Rule, { kind: "path" }>,
  path: string,
  workspaceRoot: string,
): boolean {
  for (let p = path;; p = dirname(p)) {
    if (!rule.absolute && !isWithin(workspaceRoot, p)) return false;
    if (pathMatches(rule, p, workspaceRoot)) return true;
    if (dirname(p) === p || (!rule.absolute && p === workspaceRoot)) return false;
  }
}

/** Wrappers that change only how their command runs (time, priority, signals, buffering). */
const TRANSPARENT_WRAPPERS: ReadonlySet<string> = new Set([
  "timeout",
  "time",
  "nice",
  "nohup",
  "stdbuf",
  "ionice",
]);

/** A command's program by base name, or "" when it is computed. */
function programName(cmd: SimpleCommand): string {
  const first = cmd.words[0];
  if (!first?.literal) return "";
  return first.text.slice(first.text.lastIndexOf("/") + 1);
}

/** Rules matched against the simple commands inside a command line. */
function isBashCommandRule(rule: Rule): rule is BashCommandRule {
  return rule.kind === "bash_prefix" || rule.kind === "bash_exact" || rule.kind === "bash_glob";
}

/**
 * Why the effect of a command cannot be decided statically, or undefined when it can: then no
 * allow rule approves it, and any Bash deny rule denies it.
 */
function undecidable(shell: ShellAnalysis): string | undefined {
  if (!shell.complete) return "it has syntax the checker does not follow (e.g. an open quote)";
  if (shell.undecidable.length) return shell.undecidable.slice(0, 3).join("; ");
  return undefined;
}

/** Why allow-prefix rules cannot approve this text, or undefined when they can. */
function unanalysable(shell: ShellAnalysis, top: SimpleCommand[]): string | undefined {
  const why = undecidable(shell);
  if (why) return why;
  const hiding = [...shell.features].filter((f) => HIDING_FEATURES.has(f));
  if (hiding.length) return `it uses ${hiding.map((f) => f.replace("_", " ")).join(", ")}`;
  for (const cmd of top) {
    if (cmd.assignments.length) return "it sets environment variables for a command";
    if (cmd.words.length === 0) return "it has a redirection without a command";
    for (const r of cmd.redirects) {
      const dup = (r.op === ">&" || r.op === "<&") && /^([0-9]+-?|-)$/.test(r.target?.text ?? "");
      const input = r.op === "<" || r.op === "<<<";
      const devNull = r.target?.literal && r.target.text === "/dev/null";
      if (!dup && !input && !devNull) return "it redirects output to a file";
    }
  }
  return undefined;
}
