/**
 * The environment date is the user's local day with its UTC offset, in the process time zone.
 * Each case runs in a subprocess with its own `TZ`, since a process reads its zone once.
 */
import assert from "node:assert/strict";

const TURN_BUILDER = new URL("./turn_builder.ts", import.meta.url).href;
const SESSION = new URL("../agent/session.ts", import.meta.url).href;

/** Runs two user turns in zone `tz` at the UTC instants given; returns both turn texts. */
async function turnsIn(tz: string, first: string, second: string): Promise<string[]> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "reasonix-date-" }));
  const script = `
    import { TurnBuilder } from ${JSON.stringify(TURN_BUILDER)};
    import { Session } from ${JSON.stringify(SESSION)};
    let now = new Date(${JSON.stringify(first)});
    const turns = new TurnBuilder({
      workspaceRoot: ${JSON.stringify(root)}, platform: "p", isGitRepo: false, now: () => now,
    });
    const session = new Session();
    const signal = new AbortController().signal;
    const a = await turns.build({ text: "one" }, session, { signal });
    session.append({ role: "user", content: a.content });
    session.append({ role: "assistant", content: "ok" });
    now = new Date(${JSON.stringify(second)});
    const b = await turns.build({ text: "two" }, session, { signal });
    console.log(JSON.stringify([a.content, b.content]));
  `;
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-config", script],
      env: { TZ: tz },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    return JSON.parse(new TextDecoder().decode(out.stdout));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const dateLine = (content: string): string | undefined => /\ndate: ([^\n]+)\n/.exec(content)?.[1];

Deno.test("UTC+8 sees its own day, not yesterday's, before 08:00 and after midnight", async () => {
  // 00:30 on 1 December in Shanghai is still 30 November in UTC; at 08:10 local the day
  // has not changed, at 00:05 the next night it has.
  const [a, b] = await turnsIn("Asia/Shanghai", "2026-11-30T16:30:00Z", "2026-12-01T00:10:00Z");
  assert.equal(dateLine(a), "2026-12-01 (UTC+08:00)");
  assert.equal(b, "two", "the same local day is not repeated");
  const [, c] = await turnsIn("Asia/Shanghai", "2026-12-01T15:00:00Z", "2026-12-01T16:05:00Z");
  assert.equal(c, "two\n\n<date>2026-12-02 (UTC+08:00)</date>");
});

Deno.test("zones west of UTC and half-hour offsets are written as the user's clock shows", async () => {
  const [ny] = await turnsIn("America/New_York", "2026-12-01T03:00:00Z", "2026-12-01T04:00:00Z");
  assert.equal(dateLine(ny), "2026-11-30 (UTC-05:00)");
  const [india] = await turnsIn("Asia/Kolkata", "2026-11-30T19:00:00Z", "2026-11-30T20:00:00Z");
  assert.equal(dateLine(india), "2026-12-01 (UTC+05:30)");
  const [utc] = await turnsIn("UTC", "2026-12-01T23:59:00Z", "2026-12-01T23:59:30Z");
  assert.equal(dateLine(utc), "2026-12-01 (UTC+00:00)");
});
