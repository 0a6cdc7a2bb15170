/**
 * `reasonix sessions list`: this workspace's sessions, newest first, a page at a time.
 *
 * @module
 */
import { reasonixHome } from "../core/config/mod.ts";
import { listSessions, sessionsDir } from "../core/store/sessions.ts";
import { EXIT_OK } from "./exit_codes.ts";

/** Sessions a text listing shows unless `--limit` says otherwise. */
export const PAGE_SIZE = 20;

/**
 * Runs `reasonix sessions list` (parsed by `cli/commands/sessions.ts`) and returns the exit
 * code. Only the listed page's transcripts are read (through the listing index).
 */
export async function sessionsList(
  opts: { json: boolean; limit?: number; offset?: number },
): Promise<number> {
  const json = opts.json;
  const workspace = await Deno.realPath(Deno.cwd());
  const offset = opts.offset ?? 0;
  const limit = opts.limit ?? (json ? undefined : PAGE_SIZE);
  // One more than the page tells whether there is a next one.
  const found = await listSessions(
    await sessionsDir(reasonixHome(Deno.env.toObject()), workspace),
    { offset, limit: limit === undefined ? undefined : limit + 1 },
  );
  const more = limit !== undefined && found.length > limit;
  const sessions = more ? found.slice(0, limit) : found;
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
    console.log(
      offset > 0 ? `No sessions past the ${offset} newest.` : `No sessions yet in ${workspace}.`,
    );
    return EXIT_OK;
  }
  for (const s of sessions) {
    const when = s.updated.toISOString().replace("T", " ").slice(0, 16);
    console.log(
      `${s.meta.id.slice(0, 8)}  ${when}  ${String(s.messages).padStart(5)} msgs  ${s.title}`,
    );
  }
  if (more) {
    console.log(`… more: reasonix sessions list --offset ${offset + sessions.length}`);
  }
  return EXIT_OK;
}
