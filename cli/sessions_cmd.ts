/**
 * `reasonix sessions list`: this workspace's sessions, newest first.
 *
 * @module
 */
import { reasonixHome } from "../core/config/mod.ts";
import { listSessions, sessionsDir } from "../core/store/sessions.ts";
import { EXIT_OK } from "./exit_codes.ts";

/**
 * Runs `reasonix sessions list` (parsed by `cli/commands/sessions.ts`) and returns the exit
 * code.
 */
export async function sessionsList(opts: { json: boolean }): Promise<number> {
  const json = opts.json;
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
