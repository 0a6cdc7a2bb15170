/**
 * `.env` files: the Reasonix home `.env` holds provider keys; a project `.env` only feeds
 * workspace-level expansion (the MCP layer), never provider settings or keys.
 *
 * @module
 */
import { join } from "node:path";
import { readTextIfExists } from "./files.ts";

const KEY = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/**
 * Parses `.env` text: `KEY=VALUE` lines, an optional `export ` prefix, `#` comments,
 * single quotes (literal), double quotes (with `\n`, `\t`, `\"`, `\\` escapes, may span
 * lines) and unquoted values with trailing ` # comments`. Malformed lines are skipped,
 * as every dotenv reader does; later duplicates win.
 */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i].trim();
    if (line === "" || line.startsWith("#")) continue;
    if (line.startsWith("export ")) line = line.slice("export ".length).trimStart();
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!KEY.test(key)) continue;
    let rest = line.slice(eq + 1).trimStart();
    if (rest.startsWith('"')) {
      // A double-quoted value may continue over following lines until its closing quote.
      let body = rest.slice(1);
      let end = closingQuote(body);
      while (end < 0 && i + 1 < lines.length) {
        body += "\n" + lines[++i];
        end = closingQuote(body);
      }
      if (end < 0) continue;
      out[key] = unescapeDouble(body.slice(0, end));
    } else if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      if (end < 0) continue;
      out[key] = rest.slice(1, end);
    } else {
      const hash = rest.search(/\s#/);
      if (hash >= 0) rest = rest.slice(0, hash);
      out[key] = rest.trim();
    }
  }
  return out;
}

function closingQuote(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "\\") i++;
    else if (s[i] === '"') return i;
  }
  return -1;
}

function unescapeDouble(s: string): string {
  return s.replace(/\\(.)/g, (_, c: string) => {
    switch (c) {
      case "n":
        return "\n";
      case "r":
        return "\r";
      case "t":
        return "\t";
      default:
        return c;
    }
  });
}

/** Reads and parses a `.env` file; a missing file is an empty map. */
export async function readDotenvFile(path: string): Promise<Record<string, string>> {
  const text = await readTextIfExists(path);
  return text === undefined ? {} : parseDotenv(text);
}

/** The Reasonix home `.env` (`<home>/.env`): provider keys and user-level variables. */
export function loadHomeDotenv(home: string): Promise<Record<string, string>> {
  return readDotenvFile(join(home, ".env"));
}

/**
 * The project `.env` (`<cwd>/.env`), for workspace-level expansion by the MCP layer.
 * Never used for provider settings or API keys.
 */
export function loadProjectDotenv(cwd: string): Promise<Record<string, string>> {
  return readDotenvFile(join(cwd, ".env"));
}
