/**
 * `reasonix sessions list`: this workspace's sessions, newest first.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { reasonixHome } from "../core/config/mod.ts";
import { listSessions, sessionsDir } from "../core/store/sessions.ts";
import { EXIT_OK, EXIT_USAGE } from "./exit_codes.ts";

const USAGE = `Usage: reasonix sessions list [--json]

Lists this workspace's sessions, newest first. Continue one with
reasonix run --resume <id> "…"  (or --continue for the newest).
`;

/** Runs `reasonix sessions …` and returns the exit code. */
export async function sessionsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "list") {
    console.error(`reasonix sessions: unknown command "${sub ?? ""}"\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  let json = false;
  try {
    json = parseArgs({ args: rest, options: { json: { type: "boolean" } } }).values.json === true;
  } catch (error) {
    console.error(`reasonix sessions list: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const workspace = await Deno.realPath(Deno.cwd());
  const sessions = await listSessions(
    await sessionsDir(reasonixHome(Deno.env.toObject()), workspace),
  );
  if (json) {
    console.log(JSON.stringify(sessions.map((s) => ({
      id: s.meta.id,
      created: s.meta.created,
      updated: s.updated.toISOString(),
      model: s.meta.model,
      messages: s.messages,
      title: s.title,
    }))));
    return EXIT_OK;
  }
  if (sessions.length === 0) {
    console.log(`No sessions yet in ${workspace}.`);
    return EXIT_OK;
  }
  for (const s of sessions) {
    const when = s.updated.toISOString().replace("T", " ").slice(0, 16);
    console.log(
      `${s.meta.id.slice(0, 8)}  ${when}  ${String(s.messages).padStart(5)} msgs  ${s.title}`,
    );
  }
  return EXIT_OK;
}
