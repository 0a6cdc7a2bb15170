/**
 * End to end: provider failures through the real CLI name the full URL requested and one line
 * saying what to check, and a base_url that already ends in the request path still works.
 */
import assert from "node:assert/strict";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

async function withRun(
  baseUrl: string,
  fn: (dirs: { home: string; repo: string }) => Promise<void>,
): Promise<void> {
  const home = await makeHome(baseUrl);
  const repo = await makeRepo({ "README.md": "hello\n" });
  try {
    await fn({ home, repo });
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(repo, { recursive: true });
  }
}

Deno.test("a 404 names the full URL and says Reasonix appends /chat/completions", async () => {
  const fake = await startFakeLlm({
    // The body echoes the key, as some gateways do; it must not reach the terminal.
    script: [{ status: 404, body: { error: { message: "no route for key sk-e2e-test here" } } }],
  });
  try {
    await withRun(fake.url, async ({ home, repo }) => {
      const result = await runReasonix(["run", "hi"], { cwd: repo, home });
      assert.equal(result.code, 1, result.stderr);
      assert.ok(
        result.stderr.includes(`fake: POST ${fake.url}/chat/completions: HTTP 404 Not Found:`),
        result.stderr,
      );
      assert.ok(
        result.stderr.includes(
          "\nfix: check base_url; Reasonix appends /chat/completions to it, so base_url is the " +
            "API root",
        ),
        result.stderr,
      );
      assert.ok(!result.stderr.includes("sk-e2e-test"), result.stderr);
      assert.equal(fake.requests.length, 1, "a 404 is not retried");
    });
  } finally {
    await fake.close();
  }
});

Deno.test("a refused connection asks whether the server is running at that address", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const origin = `http://127.0.0.1:${port}`;
  await withRun(`${origin}/v1`, async ({ home, repo }) => {
    const result = await runReasonix(["run", "hi"], { cwd: repo, home });
    assert.equal(result.code, 1, result.stderr);
    assert.ok(
      result.stderr.includes(`fake: POST ${origin}/v1/chat/completions: network error:`),
      result.stderr,
    );
    assert.ok(
      result.stderr.includes(`\nfix: is the server running at ${origin}? Start it, or correct`),
      result.stderr,
    );
  });
});

Deno.test("a base_url ending in /chat/completions works and warns once", async () => {
  const fake = await startFakeLlm({ script: [{ text: "Hi there." }] });
  try {
    await withRun(`${fake.url}/chat/completions`, async ({ home, repo }) => {
      const result = await runReasonix(["run", "hi"], { cwd: repo, home });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /Hi there\./);
      assert.deepEqual(fake.requests.map((r) => r.path), ["/v1/chat/completions"]);
      const warnings = result.stderr.split("\n").filter((l) => l.includes("ends in"));
      assert.equal(warnings.length, 1, result.stderr);
      assert.match(
        warnings[0],
        new RegExp(
          `^warning: .*config\\.toml:6: base_url in \\[\\[providers\\]\\] "fake" ends in ` +
            `/chat/completions, the path Reasonix appends itself; using ${fake.url} as the base`,
        ),
      );
    });
  } finally {
    await fake.close();
  }
});

Deno.test("a stream cut off mid-answer names the URL it came from", async () => {
  // Every attempt is cut off, so the retries end in the same error.
  const fake = await startFakeLlm({ script: () => ({ text: "partial", end: "truncated" }) });
  try {
    await withRun(fake.url, async ({ home, repo }) => {
      const result = await runReasonix(["run", "hi"], { cwd: repo, home });
      assert.equal(result.code, 1, result.stderr);
      assert.ok(
        result.stderr.includes(
          `fake: POST ${fake.url}/chat/completions: the stream ended before the completion finished`,
        ),
        result.stderr,
      );
    });
  } finally {
    await fake.close();
  }
});
