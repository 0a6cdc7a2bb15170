/**
 * Texts the permission layer returns to the model and shows the user. A refusal always says
 * what would allow the call, so neither has to guess.
 *
 * @module
 */
import { relative } from "node:path";
import { isWithin, toPosix } from "../../tools/paths.ts";
import { CONTROL_FILES_SUMMARY } from "./control_files.ts";
import type { PolicyCall, Verdict } from "./policy.ts";
import type { MoveViolation } from "./read_guard.ts";
import type { Preset } from "./presets.ts";
import { analyzeShell } from "./shell_parse.ts";

/** Programs whose second word is a subcommand worth keeping in a suggested prefix rule. */
const SUBCOMMAND_TOOLS = new Set([
  "git",
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "deno",
  "cargo",
  "go",
  "docker",
  "kubectl",
  "pip",
  "uv",
  "poetry",
  "make",
  "gh",
  "dotnet",
  "mvn",
  "gradle",
]);

/** The text on one line, control characters escaped so a hidden second command shows. */
function oneLine(text: string, max = 160): string {
  const line = JSON.stringify(text.trim()).slice(1, -1);
  return line.length > max ? `${line.slice(0, max)}…` : line;
}

/** A path as the user would write it in a rule: workspace-relative when inside. */
export function shownPath(path: string, root: string): string {
  if (!isWithin(root, path)) return toPosix(path);
  const rel = toPosix(relative(root, path));
  return rel === "" ? "." : rel;
}

/** One line naming the call, e.g. ``bash `npm test` `` or `edit_file src/a.ts`. */
export function describeCall(call: PolicyCall, root: string): string {
  if (call.command !== undefined) return `${call.tool} \`${oneLine(call.command)}\``;
  const paths = call.writes.length ? call.writes : call.reads;
  if (paths.length) return `${call.tool} ${paths.map((p) => shownPath(p, root)).join(", ")}`;
  return call.family === call.tool ? call.tool : `${call.tool} (${call.family})`;
}

/** A prefix rule that would cover one simple command, e.g. `Bash(npm test:*)`. */
export function suggestedBashRule(command: string): string {
  const cmd = analyzeShell(command).commands.find((c) => !c.derived && c.words.length);
  const words = cmd?.words ?? [];
  if (!words.length || !words[0].literal) return `Bash=${oneLine(command, 200)}`;
  const keep = [words[0].text];
  const second = words[1];
  if (
    second?.literal && SUBCOMMAND_TOOLS.has(words[0].text) &&
    /^[A-Za-z0-9][\w.:-]*$/.test(second.text)
  ) keep.push(second.text);
  return `Bash(${keep.join(" ")}:*)`;
}

/** A directory rule covering a path, e.g. `Edit(src/**)`. */
function suggestedPathRule(family: string, path: string, root: string): string {
  const shown = shownPath(path, root);
  const dir = shown.includes("/") ? shown.slice(0, shown.lastIndexOf("/")) : "";
  const pattern = dir === "" ? shown : `${dir}/**`;
  return `${family === "Write" ? "Edit" : family}(${pattern})`;
}

/** A policy verdict on a call, with what its messages name: the mode and the workspace root. */
export interface VerdictMessageInput {
  verdict: Verdict;
  call: PolicyCall;
  preset: Preset;
  root: string;
}

/** Why a deny verdict refused the call. */
export function denyMessage({ verdict, call, preset, root }: VerdictMessageInput): string {
  const what = describeCall(call, root);
  if (verdict.source === "deny" && verdict.note) {
    return `Permission denied: ${what} cannot be checked: ${verdict.note}. Deny rules fail ` +
      `closed ([permissions].deny or --deny). Write every program it runs out plainly, without ` +
      `eval, source, traps, aliases, array subscripts, indirect expansions or a shell reading ` +
      `standard input; do not retry it in another form to get around the rule.`;
  }
  if (verdict.source === "deny") {
    return `Permission denied: ${what} matches the deny rule "${verdict.rule}" ` +
      `([permissions].deny or --deny). Explicit deny rules apply in every permission mode; do ` +
      `not retry it in another form.`;
  }
  return `Permission denied: ${what} — ${
    verdict.note ?? `not allowed in the ${preset.name} mode`
  }. ` +
    `Writers need another permission mode (--permission-mode ask, accept-edits or auto).`;
}

/** What would let a headless run do a call the policy wants to ask about. */
export function headlessAskMessage(
  { verdict, call, preset, root }: VerdictMessageInput,
): string {
  const head = `Not run: ${describeCall(call, root)} needs approval in the "${preset.name}" ` +
    `permission mode, and this run has no one to ask (headless runs and subagents fail closed).`;
  if (verdict.source === "control") {
    const files = (verdict.controlFiles ?? []).map((p) => shownPath(p, root)).join(", ");
    return `Not run: ${call.tool} would change the control file${
      verdict.controlFiles?.length === 1 ? "" : "s"
    } ${files}: Reasonix or git act on these at the next start (MCP servers, rules, commands, ` +
      `hooks), so a person approves every change to them, in every permission mode but yolo ` +
      `and whatever the allow rules say (protected: ${CONTROL_FILES_SUMMARY}). This run has no ` +
      `one to ask. Leave the file alone, or tell the user the change to make; they can make ` +
      `it themselves, approve it in an interactive session, or run with --permission-mode yolo.`;
  }
  if (verdict.source === "ask" && verdict.note) {
    return `${head} ${capitalize(verdict.note)}; rewrite it with every program written out ` +
      `plainly, or run interactively.`;
  }
  if (verdict.source === "ask") {
    return `${head} It matches the ask rule "${verdict.rule}"; ask rules always need a person, so ` +
      `run it interactively or remove the rule.`;
  }
  switch (verdict.kind) {
    case "bash": {
      const auto = preset.name === "auto" || preset.name === "yolo"
        ? ""
        : " or pass --permission-mode auto to run commands inside the workspace sandbox " +
          "without asking";
      if (verdict.unanalysable) {
        const exact = call.command!.includes("\n")
          ? ""
          : ` pass --allow 'Bash=${call.command!.trim()}' to allow this exact command line,`;
        return `${head} Prefix rules cannot approve it because ${verdict.unanalysable}. To allow ` +
          `it,${exact}${auto}.`;
      }
      const rules = [...new Set((verdict.uncovered ?? []).map(suggestedBashRule))];
      return `${head} To allow it, pass ${rules.map((r) => `--allow "${r}"`).join(" ")}${
        auto ? `,${auto}` : ""
      }.`;
    }
    case "edit": {
      const rule = suggestedPathRule(call.family, call.writes[0] ?? "", root);
      return `${head} To allow it, pass --allow "${rule}" or --permission-mode accept-edits.`;
    }
    default:
      return `${head} To allow it, pass --allow "${call.family}"${
        verdict.kind === "other" ? " or --permission-mode yolo" : ""
      }.`;
  }
}

/** Why a headless run cannot write outside the writable roots. */
export function headlessScopeMessage(opts: {
  call: PolicyCall;
  /** The directories the call would write to outside the roots. */
  dirs: readonly string[];
  /** The writable roots. */
  roots: readonly string[];
  root: string;
}): string {
  const { call, dirs, roots, root } = opts;
  return `Not run: ${describeCall(call, root)} would write outside the writable roots ` +
    `(${roots.join(", ")}), and this run cannot ask to extend them (headless runs and ` +
    `subagents fail closed). To allow it, add ${
      dirs.map((d) => `"${d}"`).join(", ")
    } to [sandbox].allow_write in reasonix.toml or ~/.reasonix/config.toml.`;
}

/** Why a rename was refused: it would carry a read-protected path to an unprotected name. */
export function moveDeniedMessage(
  call: PolicyCall,
  violation: MoveViolation,
  root: string,
): string {
  const what = `Permission denied: ${describeCall(call, root)}`;
  const path = shownPath(violation.path, root);
  switch (violation.kind) {
    case "forbid_read":
      return `${what} would move ${path}, which is in [sandbox].forbid_read or holds or lies ` +
        `inside an entry of it; a rename would make it readable under another name. Leave ` +
        `it where it is.`;
    case "anchor":
      return `${what} would move ${path}, which the read rule "${violation.rule}" protects ` +
        `(or a directory above it); under the new name the rule would no longer match. Leave ` +
        `it where it is, or ask the user to change the rule.`;
    case "tree":
      return `${what} would carry ${path}, which the read rule "${violation.rule}" protects, ` +
        `to a name the rule does not match. Leave it where it is, or move other files.`;
    case "too_large":
      return `${what} would move ${path}, a tree too large to check against the read rules ` +
        `([permissions].deny and ask rules on reads). Move smaller parts, or ask the user.`;
    case "unreadable":
      return `${what} would move ${path}, which cannot be listed to check it against the ` +
        `read rules. Fix its permissions, or ask the user to move it.`;
  }
}

/** The user said no. */
export function userDeniedMessage(call: PolicyCall, root: string): string {
  return `The user denied ${describeCall(call, root)}. Do not retry it; ask the user or take ` +
    `another approach.`;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
