/**
 * `reasonix subagent list|try|run`: subagent profiles from the command line. `try` runs a
 * profile read-only (the process gives up Deno's write and run permissions, as read-only mode
 * does); `run` uses the configured permission mode and sandbox. Both go through the host's one
 * subagent runner, like the `task` tool.
 *
 * @module
 */
import { join } from "node:path";
import { reasonixHome } from "../core/config/mod.ts";
import { listProfiles, profileFromSkill } from "../core/subagent/profile.ts";
import type { AgentEvent } from "../core/agent/events.ts";
import type { SubagentResult } from "../core/subagent/runner.ts";
import { SubagentRefusal } from "../core/subagent/runner.ts";
import { ReasonixError } from "../errors.ts";
import { stripControl } from "../plugins/mcp/text.ts";
import { EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";
import { openHost } from "./host.ts";
import { JsonSummaryWriter } from "./output/json_summary.ts";
import type { PermissionFlags } from "./permission_flags.ts";
import { syncWriter } from "./render_plain.ts";

/** `reasonix subagent list [--json]`: the profiles this workspace can use. */
export async function subagentList(opts: { json: boolean }): Promise<number> {
  const root = await Deno.realPath(Deno.cwd());
  const home = reasonixHome(Deno.env.toObject());
  const found = (await listProfiles({ root, home, userHome: Deno.env.get("HOME") })).map((p) => ({
    name: p.name,
    description: p.description,
    readOnly: p.readOnly === true,
    path: p.path,
  }));
  if (opts.json) {
    console.log(JSON.stringify(found));
    return EXIT_OK;
  }
  if (found.length === 0) {
    console.log(
      "No subagent profiles. Add one as .reasonix/skills/<name>/SKILL.md with `runAs: subagent`.",
    );
    return EXIT_OK;
  }
  for (const p of found) {
    console.log(`${p.name}${p.readOnly ? " (read-only)" : ""}  ${p.description}`);
  }
  return EXIT_OK;
}

/** `reasonix subagent try|run <profile> <task>`. */
export async function subagentRun(opts: {
  mode: "try" | "run";
  profile: string;
  task: string;
  json: boolean;
  model?: string;
  permissions: PermissionFlags;
}): Promise<number> {
  const err = syncWriter(Deno.stderr);
  const flags = opts.mode === "try"
    ? { ...opts.permissions, permissionMode: "read-only" }
    : opts.permissions;
  let host;
  try {
    host = await openHost({ cwd: Deno.cwd(), env: Deno.env.toObject(), flags });
  } catch (error) {
    if (error instanceof ReasonixError) {
      err(`reasonix: ${stripControl(error.message)}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
  const controller = new AbortController();
  const onSigint = () => controller.abort(new DOMException("Cancelled by the user", "AbortError"));
  Deno.addSignalListener("SIGINT", onSigint);
  try {
    const profile = await host.findProfile(opts.profile);
    if (!profile) {
      err(
        `reasonix: no subagent profile is named "${opts.profile}"; see \`reasonix subagent list\`\n`,
      );
      return EXIT_USAGE;
    }
    // `try` is read-only whatever the profile says; `run` keeps the profile's own bound.
    const it = host.runSubagent({
      task: opts.task,
      profile,
      readOnly: opts.mode === "try" || undefined,
      model: opts.model,
      ephemeral: opts.mode === "try",
      parent: { depth: 0 },
    }, { signal: controller.signal });
    // With --json, the child's events feed the same summary `run --json` prints; the child
    // is this command's own agent, so its events count untagged.
    let printed = "";
    const summary = opts.json
      ? new JsonSummaryWriter({
        write: (text) => printed += text,
        info: { sessionId: "", model: "", tools: [], cwd: Deno.cwd(), permissionMode: "" },
      })
      : undefined;
    let result: SubagentResult;
    while (true) {
      const step = await it.next();
      if (step.done) {
        result = step.value;
        break;
      }
      const { agent: _agent, agentId: _agentId, ...event } = step.value as AgentEvent & {
        agent?: string;
        agentId?: string;
      };
      summary?.event(event as AgentEvent);
      if (!opts.json && event.type === "tool_start") err(`● ${event.call.name}\n`);
    }
    if (summary) {
      summary.event({
        type: "done",
        status: result.status,
        text: result.text,
        turns: result.turns,
        toolCalls: result.receipts.toolCalls ?? 0,
        usage: result.usage,
        ...(result.error ? { error: result.error } : {}),
      });
      console.log(JSON.stringify({
        ...JSON.parse(printed),
        model: result.capsule.model,
        session_id: result.sessionId,
        capsule_hash: result.capsuleHash,
        written: result.receipts.written,
        write_scope_violations: result.receipts.refused.length,
      }));
    } else {
      console.log(result.text);
      if (result.error) err(`error: ${stripControl(result.error.message)}\n`);
    }
    if (result.status === "completed") return EXIT_OK;
    return result.status === "cancelled" ? EXIT_CANCELLED : EXIT_FAILURE;
  } catch (error) {
    if (error instanceof SubagentRefusal || error instanceof ReasonixError) {
      err(`reasonix: ${stripControl(error.message)}\n`);
      return EXIT_USAGE;
    }
    throw error;
  } finally {
    Deno.removeSignalListener("SIGINT", onSigint);
    await host.close();
  }
}

/** Frontmatter keys `create` and `edit` write; any other key makes a skill "rich". */
const MANAGED_KEYS = [
  "name",
  "description",
  "runas",
  "model",
  "effort",
  "read-only",
  "allowed-tools",
];

/** What `create` and `edit` set; absent fields stay as they are. */
export interface ProfileFields {
  description?: string;
  model?: string;
  effort?: string;
  readOnly?: boolean;
  allowedTools?: string;
  prompt?: string;
}

function profileDir(opts: { name: string; global: boolean; root: string; home: string }): string {
  return opts.global
    ? join(opts.home, "skills", opts.name)
    : join(opts.root, ".reasonix", "skills", opts.name);
}

function render(name: string, fields: Required<Pick<ProfileFields, "prompt">> & ProfileFields) {
  const lines = ["---", `name: ${name}`];
  if (fields.description) lines.push(`description: ${JSON.stringify(fields.description)}`);
  lines.push("runAs: subagent");
  if (fields.model) lines.push(`model: ${fields.model}`);
  if (fields.effort) lines.push(`effort: ${fields.effort}`);
  if (fields.readOnly) lines.push("read-only: true");
  if (fields.allowedTools) lines.push(`allowed-tools: ${fields.allowedTools}`);
  lines.push("---", "", fields.prompt.trim(), "");
  return lines.join("\n");
}

/**
 * Why a profile directory is not simple enough to rewrite: extra files (`references/`,
 * `scripts/`), frontmatter keys `create` does not write, or no subagent profile at all.
 */
async function richness(dir: string): Promise<string | undefined> {
  const entries: string[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry.name);
  const extra = entries.filter((e) => e !== "SKILL.md");
  if (extra.length) return `it holds more than SKILL.md (${extra.sort().join(", ")})`;
  const text = await Deno.readTextFile(join(dir, "SKILL.md"));
  const head = /^---\n([\s\S]*?)\n---/.exec(text.replaceAll("\r\n", "\n"))?.[1] ?? "";
  const keys = head.split("\n").map((l) => /^([A-Za-z][\w-]*)\s*:/.exec(l)?.[1]?.toLowerCase())
    .filter((k): k is string => k !== undefined);
  const unmanaged = keys.filter((k) => !MANAGED_KEYS.includes(k));
  if (unmanaged.length) {
    return `its frontmatter has keys this command does not manage (${unmanaged.join(", ")})`;
  }
  if (!profileFromSkill(text, dir.split("/").at(-1)!)) return "it is not a subagent profile";
  return undefined;
}

/** `reasonix subagent create|edit|delete <name>`. */
export async function subagentManage(opts: {
  action: "create" | "edit" | "delete";
  name: string;
  global: boolean;
  fields: ProfileFields;
}): Promise<number> {
  const err = syncWriter(Deno.stderr);
  const name = opts.name.toLowerCase();
  if (!/^[a-z0-9][a-z0-9_-]{0,63}$/.test(name)) {
    err(`reasonix: "${opts.name}" is not a profile name: use letters, digits, - and _\n`);
    return EXIT_USAGE;
  }
  const dir = profileDir({
    name,
    global: opts.global,
    root: await Deno.realPath(Deno.cwd()),
    home: reasonixHome(Deno.env.toObject()),
  });
  const path = join(dir, "SKILL.md");
  const exists = await Deno.stat(path).then(() => true, () => false);
  if (opts.action === "create") {
    if (exists) {
      err(`reasonix: ${path} exists; change it with \`reasonix subagent edit ${name}\`\n`);
      return EXIT_USAGE;
    }
    if (!opts.fields.prompt?.trim()) {
      err("reasonix: a profile needs its system prompt: pass --prompt <text>\n");
      return EXIT_USAGE;
    }
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(path, render(name, { ...opts.fields, prompt: opts.fields.prompt }), {
      createNew: true,
    });
    console.log(`Created ${path}`);
    return EXIT_OK;
  }
  if (!exists) {
    err(`reasonix: no profile at ${path}; see \`reasonix subagent list\`\n`);
    return EXIT_USAGE;
  }
  const rich = await richness(dir);
  if (rich) {
    err(`reasonix: ${path} is a rich skill: ${rich}. Edit it by hand instead.\n`);
    return EXIT_USAGE;
  }
  if (opts.action === "delete") {
    await Deno.remove(dir, { recursive: true });
    console.log(`Deleted ${dir}`);
    return EXIT_OK;
  }
  const current = profileFromSkill(await Deno.readTextFile(path), name)!;
  // Every field not given stays, `read-only` included: an edit never widens a profile by
  // forgetting its bound.
  const next = render(name, {
    description: opts.fields.description ?? current.description,
    model: opts.fields.model ?? current.model,
    effort: opts.fields.effort ?? current.effort,
    readOnly: opts.fields.readOnly ?? current.readOnly,
    allowedTools: opts.fields.allowedTools ?? current.allowedTools?.join(", "),
    prompt: opts.fields.prompt ?? current.prompt,
  });
  const temp = `${path}.tmp-${crypto.randomUUID()}`;
  await Deno.writeTextFile(temp, next);
  await Deno.rename(temp, path);
  console.log(`Updated ${path}`);
  return EXIT_OK;
}
