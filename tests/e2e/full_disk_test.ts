/**
 * End to end: the disk fills up in the middle of `reasonix run`. The sessions directory is a
 * real 64 KiB tmpfs (bubblewrap `--size`), mostly taken by a filler file, so the transcript
 * runs out of space after a few records. The run must stop with a clear error (no stack
 * trace), the transcript must end with a whole record, and `--continue` must resume from it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseTranscript } from "../../core/store/transcript.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeStep } from "../fake_llm/mod.ts";
import { onSmallTmpfs } from "../support/small_fs.ts";
import { cliEnv, makeHome, makeRepo, REASONIX_TASK, runReasonix } from "./support.ts";

const TMPFS_BYTES = 65536;
const FILLER_BYTES = 50000;

const LONG = "The listing shows one file. ".repeat(110); // ~3 KB per assistant message
const SCRIPT: FakeStep[] = [
  { text: "Looking.", toolCalls: [{ name: "ls", arguments: "{}" }] },
  ...Array.from({ length: 6 }, (): FakeStep => ({
    text: LONG,
    toolCalls: [{ name: "ls", arguments: "{}" }],
  })),
  { text: "Done." },
];

/** Runs `reasonix run` with `<home>/sessions` on a nearly full tmpfs; copies it out after. */
async function runOnFullDisk(
  repo: string,
  home: string,
  saved: string,
): Promise<{ code: number; stderr: string }> {
  const sessions = join(home, "sessions");
  await Deno.mkdir(sessions, { recursive: true });
  const script = `head -c ${FILLER_BYTES} /dev/zero > "$SESSIONS/filler" || exit 97
"$@"; code=$?
rm -f "$SESSIONS/filler"; cp -r "$SESSIONS/." "$SAVED/" || exit 98
exit $code`;
  const out = await onSmallTmpfs(sessions, TMPFS_BYTES, [
    "sh",
    "-c",
    script,
    "sh",
    ...REASONIX_TASK,
    "run",
    "--permission-mode",
    "auto",
    "list the files, again and again",
  ], {
    cwd: repo,
    clearEnv: true,
    env: cliEnv(home, { SESSIONS: sessions, SAVED: saved }),
    stdin: "null",
  });
  return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
}

async function onlyFile(dir: string, suffix: string): Promise<string> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.isDirectory) return await onlyFile(join(dir, entry.name), suffix);
    if (entry.name.endsWith(suffix)) return join(dir, entry.name);
  }
  throw new Error(`no ${suffix} file under ${dir}`);
}

Deno.test({
  name: "a full disk stops the run cleanly; the transcript stays whole and --continue resumes",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    const fake = await startFakeLlm({ script: SCRIPT });
    const repo = await makeRepo({ "a.txt": "a\n" });
    const home = await makeHome(fake.url);
    const saved = await Deno.makeTempDir({ prefix: "reasonix-e2e-saved-" });
    let resume: Awaited<ReturnType<typeof startFakeLlm>> | undefined;
    try {
      const run = await runOnFullDisk(repo, home, saved);
      assert.equal(run.code, 1, run.stderr);
      assert.match(
        run.stderr,
        /error: could not write the session transcript .*\.jsonl: No space left on device/,
      );
      assert.match(run.stderr, /free some space and `reasonix --continue` picks it up/);
      assert.doesNotMatch(run.stderr, /Uncaught|\n\s+at /);
      assert.ok(fake.requests.length < SCRIPT.length, "the run stopped at the failed write");

      const path = await onlyFile(saved, ".jsonl");
      const text = await Deno.readTextFile(path);
      assert.ok(text.endsWith("\n"), "the transcript ends with a whole record");
      const loaded = parseTranscript(text)!;
      assert.equal(loaded.skippedLines, 0, "no torn or damaged line");
      assert.ok(loaded.messages.length >= 3, `saved: ${loaded.messages.length} messages`);
      assert.equal(loaded.messages[0].role, "user");

      // With space again, --continue picks the session up from its last whole record.
      await Deno.remove(join(home, "sessions"), { recursive: true });
      await Deno.rename(saved, join(home, "sessions"));
      resume = await startFakeLlm({ script: [{ text: "Resumed." }] });
      await Deno.writeTextFile(
        join(home, "config.toml"),
        (await Deno.readTextFile(join(home, "config.toml"))).replace(fake.url, resume.url),
      );
      const again = await runReasonix(["run", "--continue", "go on"], { cwd: repo, home });
      assert.equal(again.code, 0, again.stderr);
      const sent = resume.requests[0].body as { messages: { role: string; content: unknown }[] };
      const texts = sent.messages.map((m) => JSON.stringify(m.content));
      assert.ok(texts.some((t) => t.includes("list the files, again and again")));
      assert.ok(texts.some((t) => t.includes("Looking.")));
      assert.match(texts.at(-1)!, /go on/);
    } finally {
      await fake.close();
      await resume?.close();
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(home, { recursive: true });
      await Deno.remove(saved, { recursive: true }).catch(() => {});
    }
  },
});
