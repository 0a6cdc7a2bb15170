/**
 * Small, format-preserving edits of TOML files the user owns: set one key in one table and
 * remove retired keys. Comments, order and everything else stay byte for byte; every result
 * is re-parsed before it is written, and files are replaced atomically.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { parse } from "smol-toml";

/** Keys of the old multi-threshold context design, removed on startup (spec §3.6). */
export const LEGACY_CONTEXT_KEYS: readonly string[] = [
  "soft_compact_ratio",
  "tool_result_snip_ratio",
  "compact_force_ratio",
  "cold_resume_prune",
  "context_editing",
];

const HEADER = /^\s*\[([^\[\]]+)\]\s*(?:#.*)?$/;
const ARRAY_HEADER = /^\s*\[\[/;

function keyLine(key: string): RegExp {
  return new RegExp(`^\\s*${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*=`);
}

/**
 * Returns `text` with `key = literal` set in `[table]`: the existing line is replaced, or the
 * key is added at the end of the table, or the table is appended. `literal` is TOML source.
 */
export function setTomlValue(text: string, table: string, key: string, literal: string): string {
  const lines = text.split("\n");
  let inTable = false;
  let tableEnd = -1;
  for (let i = 0; i < lines.length; i++) {
    const header = HEADER.exec(lines[i]);
    if (header || ARRAY_HEADER.test(lines[i])) {
      if (inTable) break;
      inTable = header?.[1].trim() === table;
      if (inTable) tableEnd = i + 1;
      continue;
    }
    if (!inTable) continue;
    if (keyLine(key).test(lines[i])) {
      const comment = /\s+#.*$/.exec(lines[i].split("=").slice(1).join("="))?.[0] ?? "";
      lines[i] = `${key} = ${literal}${comment}`;
      return lines.join("\n");
    }
    if (lines[i].trim() !== "") tableEnd = i + 1;
  }
  if (tableEnd >= 0) {
    lines.splice(tableEnd, 0, `${key} = ${literal}`);
    return lines.join("\n");
  }
  const base = text === "" || text.endsWith("\n") ? text : `${text}\n`;
  return `${base}${base.trim() ? "\n" : ""}[${table}]\n${key} = ${literal}\n`;
}

/** Removes single-line assignments of the legacy keys; returns the new text and what went. */
export function removeLegacyKeys(text: string): { text: string; removed: string[] } {
  const removed: string[] = [];
  const kept = text.split("\n").filter((line) => {
    const key = LEGACY_CONTEXT_KEYS.find((k) => keyLine(k).test(line));
    // Only one-line values: a multi-line value would leave broken TOML behind.
    if (key && !/[\[{]\s*(?:#.*)?$/.test(line) && !/"""|'''/.test(line)) {
      removed.push(key);
      return false;
    }
    return true;
  });
  return { text: kept.join("\n"), removed };
}

/** Writes `text` to `path` atomically after checking it parses as TOML. */
export async function writeTomlFile(path: string, text: string): Promise<void> {
  parse(text);
  let mode: number | undefined;
  try {
    mode = (await Deno.stat(path)).mode ?? undefined;
  } catch {
    mode = undefined;
  }
  await Deno.mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${crypto.randomUUID()}.tmp`);
  try {
    await Deno.writeTextFile(temp, text, { mode: mode ?? 0o644 });
    await Deno.rename(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
}

/**
 * Removes the legacy context keys from config files on startup. Returns one notice per file
 * changed or that could not be changed; runtime ignores the keys either way.
 */
export async function scrubLegacyKeys(paths: readonly string[]): Promise<string[]> {
  const notices: string[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await Deno.readTextFile(path);
    } catch {
      continue;
    }
    const { text: cleaned, removed } = removeLegacyKeys(text);
    if (removed.length === 0) continue;
    try {
      await writeTomlFile(path, cleaned);
      notices.push(`removed retired context setting(s) ${removed.join(", ")} from ${path}`);
    } catch (error) {
      notices.push(
        `${path} has retired context setting(s) ${removed.join(", ")} (ignored); ` +
          `they could not be removed: ${(error as Error).message}`,
      );
    }
  }
  return notices;
}
