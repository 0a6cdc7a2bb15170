/**
 * Subagent profiles are Skills (spec §3.10): a `SKILL.md` with `runAs: subagent` in
 * `.reasonix/skills/<name>/` or `.claude/skills/<name>/` of the project or the user's home.
 * {@linkcode profileFromSkill} is the one narrowing point: of the frontmatter only `name`,
 * `description`, `model`, `effort`, `read-only` and `allowed-tools` reach the profile, as upper
 * bounds; per-run values (`max_turns`, `write_paths`, retries, verification) and routing
 * metadata stop there.
 *
 * @module
 */
import { join } from "node:path";
import { parseFrontmatter } from "../commands/frontmatter.ts";
import type { Profile } from "./runner.ts";

/** The frontmatter keys that may reach a profile. Everything else stops at the narrowing. */
export const PROFILE_KEYS: readonly string[] = [
  "name",
  "description",
  "model",
  "effort",
  "read-only",
  "allowed-tools",
];

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** Claude Code's tool names in `allowed-tools`, as Reasonix names them. */
const CLAUDE_TOOLS: Record<string, string> = {
  Read: "read_file",
  Write: "write_file",
  Edit: "edit_file",
  MultiEdit: "multi_edit",
  Grep: "grep",
  Glob: "glob",
  LS: "ls",
  Bash: "bash",
};

/**
 * Narrows a skill to a profile; undefined when it is not a subagent profile (`runAs` is not
 * `subagent`) or its name is unusable.
 */
export function profileFromSkill(text: string, dirName: string): Profile | undefined {
  let doc;
  try {
    doc = parseFrontmatter(text);
  } catch {
    return undefined;
  }
  const a = doc.attributes;
  if ((a["runas"] ?? "").toLowerCase() !== "subagent") return undefined;
  const name = (a["name"] || dirName).toLowerCase();
  if (!NAME.test(name)) return undefined;
  const prompt = doc.body.trim();
  if (!prompt) return undefined;
  const profile: Profile = { name, description: a["description"] ?? "", prompt };
  if (a["model"]) profile.model = a["model"];
  if (a["effort"]) profile.effort = a["effort"];
  if (/^(true|yes)$/i.test(a["read-only"] ?? "")) profile.readOnly = true;
  if (a["allowed-tools"]) {
    // Names, each with an optional Claude Code rule suffix: `Read, Bash(git log:*) grep`.
    const names = a["allowed-tools"].match(/[A-Za-z_][\w-]*(?:\([^)]*\))?/g) ?? [];
    profile.allowedTools = names.map((n) => n.replace(/\(.*$/, "")).map((n) =>
      CLAUDE_TOOLS[n] ?? n
    );
  }
  return profile;
}

/** Where profiles are looked for, most specific first. */
export function profileDirs(opts: { root: string; home: string; userHome?: string }): string[] {
  return [
    join(opts.root, ".reasonix", "skills"),
    join(opts.root, ".claude", "skills"),
    join(opts.home, "skills"),
    ...(opts.userHome ? [join(opts.userHome, ".claude", "skills")] : []),
  ];
}

/** The profile `name`, from the first directory that has it. */
export async function findProfile(
  name: string,
  opts: { root: string; home: string; userHome?: string },
): Promise<Profile | undefined> {
  if (!NAME.test(name)) return undefined;
  for (const dir of profileDirs(opts)) {
    const text = await Deno.readTextFile(join(dir, name, "SKILL.md")).catch(() => undefined);
    if (text === undefined) continue;
    const profile = profileFromSkill(text, name);
    if (profile) return profile;
  }
  return undefined;
}

/**
 * Every profile, each under the name {@linkcode findProfile} finds it by (its folder's) and
 * each name once, the first directory that has it winning as there; sorted by name, for the
 * interactive UI's slash completion.
 */
export async function listProfiles(
  opts: { root: string; home: string; userHome?: string },
): Promise<Profile[]> {
  const found = new Map<string, Profile>();
  for (const dir of profileDirs(opts)) {
    let entries: Deno.DirEntry[];
    try {
      entries = await Array.fromAsync(Deno.readDir(dir));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if ((!entry.isDirectory && !entry.isSymlink) || !NAME.test(entry.name)) continue;
      if (found.has(entry.name)) continue;
      const text = await Deno.readTextFile(join(dir, entry.name, "SKILL.md")).catch(() =>
        undefined
      );
      const profile = text === undefined ? undefined : profileFromSkill(text, entry.name);
      if (profile) found.set(entry.name, { ...profile, name: entry.name });
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}
