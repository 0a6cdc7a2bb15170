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
import { localWorkspace } from "../../tools/workspace/local.ts";
import type { Workspace } from "../../tools/workspace/types.ts";

/**
 * Where profiles are looked for: the project's folders under `root`, read through `workspace`
 * (another machine's for a remote session; default this one), then the Reasonix home's and the
 * user's, always on this machine.
 */
export interface ProfileDirs {
  /** The workspace root: its `.reasonix/skills` and `.claude/skills`. */
  root: string;
  /** The machine `root` is on; default this one. */
  workspace?: Workspace;
  /** The Reasonix home: its `skills`. */
  home: string;
  /** The user's home directory: its `.claude/skills`. */
  userHome?: string;
}

/** One folder to look in and the file operations that reach it. */
interface ProfileDir {
  dir: string;
  fs: Workspace;
}

const decoder = new TextDecoder();

function skillText(place: ProfileDir, name: string): Promise<string | undefined> {
  return place.fs.readFile(join(place.dir, name, "SKILL.md")).then(
    (bytes) => decoder.decode(bytes),
    () => undefined,
  );
}

function profilePlaces(opts: ProfileDirs): ProfileDir[] {
  const local = localWorkspace();
  const project = opts.workspace ?? local;
  return profileDirs(opts).map((dir, i) => ({ dir, fs: i < 2 ? project : local }));
}

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
export function profileDirs(opts: ProfileDirs): string[] {
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
  opts: ProfileDirs,
): Promise<Profile | undefined> {
  if (!NAME.test(name)) return undefined;
  for (const place of profilePlaces(opts)) {
    const text = await skillText(place, name);
    if (text === undefined) continue;
    const profile = profileFromSkill(text, name);
    if (profile) return profile;
  }
  return undefined;
}

/** A profile of {@linkcode listProfiles}, with the file it came from. */
export interface ListedProfile extends Profile {
  /** Its `SKILL.md`. */
  path: string;
}

/**
 * Every profile, each under the name {@linkcode findProfile} finds it by (its folder's) and
 * each name once, the first directory that has it winning as there; sorted by name, for the
 * interactive UI's slash completion and `reasonix subagent list`.
 */
export async function listProfiles(
  opts: ProfileDirs,
): Promise<ListedProfile[]> {
  const found = new Map<string, ListedProfile>();
  for (const place of profilePlaces(opts)) {
    let entries: { name: string; isDirectory: boolean; isSymlink: boolean }[];
    try {
      entries = await Array.fromAsync(place.fs.readDir(place.dir));
    } catch {
      continue;
    }
    for (const entry of entries) {
      if ((!entry.isDirectory && !entry.isSymlink) || !NAME.test(entry.name)) continue;
      if (found.has(entry.name)) continue;
      const text = await skillText(place, entry.name);
      const profile = text === undefined ? undefined : profileFromSkill(text, entry.name);
      const path = join(place.dir, entry.name, "SKILL.md");
      if (profile) found.set(entry.name, { ...profile, name: entry.name, path });
    }
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}
