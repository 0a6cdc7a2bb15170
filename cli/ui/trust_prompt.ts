/**
 * The trust question of the interactive session: before the runtime starts anything, each
 * untrusted declaration of the project (an MCP server that would start, loosening settings
 * that would apply) is shown with its file and line, and the user trusts it (remembered),
 * trusts it for this session, or skips it. Asked on the plain terminal, before the full-screen
 * UI takes it over.
 *
 * @module
 */
import { printable, TrustStore } from "../../core/config/mod.ts";
import {
  declarationPlace,
  describeDeclaration,
  reviewProject,
  type TrustItem,
} from "../project_trust.ts";

/** The answer to one trust question. */
export type TrustAnswer = "trust" | "once" | "skip";

/** Where the question is asked. */
export interface PromptIo {
  write(text: string): void;
  /** The next line the user typed, without its line break; `null` at end of input. */
  readLine(): Promise<string | null>;
}

const CHOICES = "[t] trust (remembered)  [o] this session only  [s] skip (default)";

function parseAnswer(text: string): TrustAnswer | undefined {
  const word = text.trim().toLowerCase();
  if (word === "" || word === "s" || word === "skip" || word === "n" || word === "no") {
    return "skip";
  }
  if (word === "t" || word === "trust" || word === "y" || word === "yes") return "trust";
  if (word === "o" || word === "once") return "once";
  return undefined;
}

/**
 * Asks about each item in turn and returns the answers by hash. End of input skips the rest;
 * an answer that is not a choice is asked again.
 */
export async function askTrust(
  workspace: string,
  items: readonly TrustItem[],
  io: PromptIo,
): Promise<Map<string, TrustAnswer>> {
  const answers = new Map<string, TrustAnswer>();
  if (items.length === 0) return answers;
  io.write(
    `\n${printable(workspace)} has project files that declare what Reasonix would run or ` +
      "loosen.\nProject files are untrusted input: a cloned repository, a git pull or the " +
      "model can write them.\n",
  );
  let ended = false;
  for (const item of items) {
    const d = item.declaration;
    const place = declarationPlace(workspace, d);
    io.write(
      d.kind === "mcp_server"
        ? `\nMCP server "${printable(d.name)}" (${place}) would start:\n`
        : d.kind === "provider"
        ? `\nprovider "${printable(d.name)}" (${place}) would receive your conversation and ` +
          "everything the model reads:\n"
        : `\n${place} would loosen your permissions:\n`,
    );
    for (const line of describeDeclaration(d, "    ")) io.write(`${line}\n`);
    let answer: TrustAnswer | undefined;
    while (!ended && answer === undefined) {
      io.write(`  ${CHOICES}\n  > `);
      const line = await io.readLine();
      if (line === null) {
        ended = true;
        io.write("\n");
        break;
      }
      answer = parseAnswer(line);
      if (answer === undefined) io.write(`  please answer t, o or s\n`);
    }
    answers.set(item.hash, answer ?? "skip");
  }
  return answers;
}

/** What the session was told to trust and skip, as hashes for `buildRuntime`. */
export interface TrustSessionChoices {
  session: Set<string>;
  skipped: Set<string>;
}

/**
 * Asks about every untrusted declaration of the project in `cwd` and records the remembered
 * answers in the trust store. A store that cannot be written turns "trust" into "this
 * session only", with the reason shown.
 */
export async function promptProjectTrust(
  opts: { home: string; cwd: string; io: PromptIo },
): Promise<TrustSessionChoices> {
  const review = await reviewProject(opts);
  for (const w of review.warnings) opts.io.write(`warning: ${w}\n`);
  const pending = review.items.filter((i) => !i.stored);
  const answers = await askTrust(review.workspace, pending, opts.io);
  const choices: TrustSessionChoices = { session: new Set(), skipped: new Set() };
  const remembered = pending.filter((i) => answers.get(i.hash) === "trust");
  for (const item of pending) {
    const answer = answers.get(item.hash);
    if (answer === "skip") choices.skipped.add(item.hash);
    // Trusted for this session too, so a failed write still honours the answer.
    else choices.session.add(item.hash);
  }
  if (remembered.length) {
    try {
      await new TrustStore(opts.home).grant(review.workspace, remembered.map((i) => i.declaration));
    } catch (error) {
      opts.io.write(
        `warning: trusted for this session only; the trust store was not written: ` +
          `${(error as Error).message}\n`,
      );
    }
  }
  return choices;
}

/** The plain terminal as a {@link PromptIo}: stdout, and stdin read a line at a time. */
export function terminalIo(): PromptIo {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let pending = "";
  return {
    write: (text) => {
      const bytes = encoder.encode(text);
      let offset = 0;
      while (offset < bytes.length) offset += Deno.stdout.writeSync(bytes.subarray(offset));
    },
    async readLine() {
      const buffer = new Uint8Array(1024);
      while (!pending.includes("\n")) {
        // `read` takes no lock on stdin, which the full-screen UI reads afterwards.
        const n = await Deno.stdin.read(buffer);
        if (n === null) {
          if (pending === "") return null;
          break;
        }
        pending += decoder.decode(buffer.subarray(0, n), { stream: true });
      }
      const end = pending.indexOf("\n");
      const line = end < 0 ? pending : pending.slice(0, end);
      pending = end < 0 ? "" : pending.slice(end + 1);
      return line.replace(/\r$/, "");
    },
  };
}
