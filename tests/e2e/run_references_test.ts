/**
 * `reasonix run` builds its turn like the interactive UI: `@path` references in the task are
 * read and attached before the first request, through the turn builder every agent uses.
 */
import assert from "node:assert/strict";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

function firstUserText(req: RecordedRequest): string {
  const messages = (req.body as { messages: { role: string; content: unknown }[] }).messages;
  const user = messages.find((m) => m.role === "user");
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
}

Deno.test("reasonix run attaches the files its task references with @", async () => {
  const fake = await startFakeLlm({ script: [{ text: "It adds two numbers." }] });
  const repo = await makeRepo({
    "src/math.js": "export const add = (a, b) => a + b; // MARK-42\n",
  });
  const home = await makeHome(fake.url);
  try {
    const result = await runReasonix(["run", "explain @src/math.js and @nowhere.txt"], {
      cwd: repo,
      home,
    });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "It adds two numbers.");
    const sent = firstUserText(fake.requests[0]);
    assert.match(sent, /explain @src\/math\.js and @nowhere\.txt/);
    assert.match(sent, /MARK-42/, "the referenced file's text reached the model");
    assert.match(result.stderr, /src\/math\.js/, "the attachment is reported on stderr");
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
