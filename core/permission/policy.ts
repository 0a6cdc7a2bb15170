/**
 * The permission policy (spec §3.7): one call in, `allow | ask | deny` out. Precedence is
 * deny > ask > allow > fallback; readers fall back to allow, writers to the preset.
 *
 * @module
 */
import type { PermissionDecision } from "../agent/events.ts";
import type { CallKind, Preset } from "./presets.ts";
import {
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
}

/** Which list decided. */
export type VerdictSource = "deny" | "ask" | "allow" | "preset";

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

/** Decides calls from rules and a preset. Pure: no I/O, no state. */
export class Policy {
  readonly preset: Preset;
  readonly rules: RuleSet;
  readonly #root: string;
  readonly #shellSandbox: boolean;

  constructor(opts: PolicyOptions) {
    this.preset = opts.preset;
    this.rules = opts.rules;
    this.#root = opts.workspaceRoot;
    this.#shellSandbox = opts.shellSandbox;
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

    if (
      shell && this.#hasBashRules() && (!shell.complete || shell.features.has("dynamic_command"))
    ) {
      // A deny rule cannot be checked against a program chosen at run time.
      const guard = [...this.rules.deny, ...this.rules.ask].find(isBashCommandRule);
      return {
        decision: "ask",
        kind,
        source: "deny",
        rule: guard?.text,
        note: shell.complete
          ? "the command computes the program it runs (a variable, $(…), backticks or a " +
            "shell reading a script from a pipe), so Bash deny and ask rules cannot be checked"
          : "the command has syntax this checker does not follow (e.g. an unclosed quote), " +
            "so Bash deny and ask rules cannot be checked",
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

  #hasBashRules(): boolean {
    return [...this.rules.deny, ...this.rules.ask].some(isBashCommandRule);
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
        return shell.commands.some((cmd) =>
          candidates(cmd).some((words) => bashRuleMatches(rule, words, false))
        );
      case "path": {
        if (!ruleNameCovers(rule.name, call.family, call.tool)) return false;
        const targets = pathRuleReads(rule) ? call.reads : call.writes;
        return targets.some((p) => pathMatches(rule, p, this.#root));
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
    const prefixRules = this.rules.allow.filter((r) =>
      r.kind === "bash_prefix" || r.kind === "bash_exact" || r.kind === "bash_glob"
    ) as Extract<Rule, { kind: "bash_prefix" | "bash_exact" | "bash_glob" }>[];
    const used: string[] = [];
    const uncovered: string[] = [];
    for (const cmd of top) {
      const rule = prefixRules.find((r) => bashRuleMatches(r, cmd.words, true));
      if (rule) {
        if (!used.includes(rule.text)) used.push(rule.text);
      } else {
        uncovered.push(commandText(cmd) || "(redirection only)");
      }
    }
    if (why) return { uncovered, unanalysable: why };
    if (uncovered.length || used.length === 0) return { uncovered };
    return { rule: used.join(", ") };
  }
}

/** Rules matched against the simple commands inside a command line. */
function isBashCommandRule(rule: Rule): boolean {
  return rule.kind === "bash_prefix" || rule.kind === "bash_exact" || rule.kind === "bash_glob";
}

/** Why allow-prefix rules cannot approve this text, or undefined when they can. */
function unanalysable(shell: ShellAnalysis, top: SimpleCommand[]): string | undefined {
  if (!shell.complete) return "it has syntax the checker does not follow";
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

/** The word lists a deny or ask rule is tried against for one simple command. */
function candidates(cmd: SimpleCommand): SimpleCommand["words"][] {
  const out = [cmd.words];
  const first = cmd.words[0];
  if (first?.literal && first.text.includes("/")) {
    // `/bin/rm` and `./rm` are `rm` for deny rules.
    const base = first.text.slice(first.text.lastIndexOf("/") + 1);
    out.push([{ text: base, literal: true }, ...cmd.words.slice(1)]);
  }
  return out;
}
