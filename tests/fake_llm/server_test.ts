import assert from "node:assert/strict";
import { type FakeLlm, type FakeLlmOptions, startFakeLlm } from "./mod.ts";

async function withFake(
  opts: FakeLlmOptions,
  fn: (fake: FakeLlm) => Promise<void>,
): Promise<void> {
  const fake = await startFakeLlm(opts);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

function post(fake: FakeLlm, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    ...init,
  });
}

/** Splits an SSE body into its blocks (events and comments). */
function blocks(text: string): string[] {
  return text.split("\n\n").filter((b) => b !== "");
}

// Frames are arbitrary JSON; the assertions below check their shape.
// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const streamRequest = {
  model: "deepseek-chat",
  stream: true,
  stream_options: { include_usage: true },
};

Deno.test("fake streams realistic chat.completion.chunk frames in order", async () => {
  await withFake({
    script: [{
      reasoning: "Let me think about it.",
      text: "Hello, wörld!",
      toolCalls: [{ id: "call_9", name: "read_file", arguments: '{"path":"README.md"}' }],
    }],
  }, async (fake) => {
    const response = await post(fake, streamRequest);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream; charset=utf-8");
    const parts = blocks(await response.text());
    assert.ok(parts.includes(": keep-alive"));
    assert.equal(parts.at(-1), "data: [DONE]");
    const chunks: Json[] = parts
      .filter((p) => p.startsWith("data: {"))
      .map((p) => JSON.parse(p.slice("data: ".length)));
    for (const chunk of chunks) {
      assert.match(chunk.id, /^chatcmpl-/);
      assert.equal(chunk.object, "chat.completion.chunk");
      assert.equal(typeof chunk.created, "number");
      assert.equal(chunk.model, "deepseek-chat");
      assert.equal(chunks[0].id, chunk.id);
    }
    const withChoice = chunks.filter((c) => c.choices.length > 0);
    for (const chunk of withChoice) {
      assert.deepEqual(Object.keys(chunk.choices[0]), [
        "index",
        "delta",
        "logprobs",
        "finish_reason",
      ]);
      assert.equal(chunk.usage, null, "include_usage puts usage: null on every other chunk");
    }
    assert.deepEqual(withChoice[0].choices[0].delta, { role: "assistant", content: "" });
    const deltas = withChoice.map((c) => c.choices[0].delta);
    const reasoning = deltas.filter((d) => "reasoning_content" in d);
    assert.ok(reasoning.length > 1);
    assert.ok(reasoning.every((d) => d.content === null));
    assert.equal(reasoning.map((d) => d.reasoning_content).join(""), "Let me think about it.");
    const text = deltas.filter((d) => typeof d.content === "string" && !("role" in d));
    assert.ok(text.length > 1);
    assert.equal(text.map((d) => d.content).join(""), "Hello, wörld!");
    const calls = deltas.filter((d) => d.tool_calls).map((d) => d.tool_calls[0]);
    assert.deepEqual(calls[0], {
      index: 0,
      id: "call_9",
      type: "function",
      function: { name: "read_file", arguments: "" },
    });
    assert.ok(calls.length > 3, "arguments spread over several deltas");
    assert.ok(calls.slice(1).every((c) => Object.keys(c).join() === "index,function"));
    assert.equal(calls.map((c) => c.function.arguments).join(""), '{"path":"README.md"}');
    const finish = withChoice.at(-1)!;
    assert.deepEqual(finish.choices[0], {
      index: 0,
      delta: {},
      logprobs: null,
      finish_reason: "tool_calls",
    });
    const usage = chunks.at(-1)!;
    assert.deepEqual(usage.choices, []);
    assert.deepEqual(Object.keys(usage.usage), [
      "prompt_tokens",
      "completion_tokens",
      "total_tokens",
      "prompt_tokens_details",
      "prompt_cache_hit_tokens",
      "prompt_cache_miss_tokens",
      "completion_tokens_details",
    ]);
  });
});

Deno.test("fake computes usage from body bytes and the shared prefix", async () => {
  await withFake({ script: [{ text: "aaaa" }, { text: "bbbbbbbb" }] }, async (fake) => {
    await (await post(fake, streamRequest)).text();
    const second = { ...streamRequest, messages: [{ role: "user", content: "more" }] };
    const text = await (await post(fake, second)).text();
    const usage = JSON.parse(blocks(text).at(-2)!.slice(6)).usage;
    const req = fake.requests[1];
    const prompt = Math.ceil(req.bodyText.length / 4);
    const hit = Math.floor(req.sharedPrefixBytes / 4);
    assert.equal(req.sharedPrefixBytes, JSON.stringify(streamRequest).length - 1);
    assert.deepEqual(usage, {
      prompt_tokens: prompt,
      completion_tokens: 2,
      total_tokens: prompt + 2,
      prompt_tokens_details: { cached_tokens: hit },
      prompt_cache_hit_tokens: hit,
      prompt_cache_miss_tokens: prompt - hit,
    });
  });
});

Deno.test("fake OpenAI style sends usage only when asked, without DeepSeek fields", async () => {
  await withFake({
    script: [{ text: "x", usageStyle: "openai" }, { text: "y", usageStyle: "openai" }],
  }, async (fake) => {
    const silent = await (await post(fake, { model: "gpt-4o", stream: true })).text();
    assert.ok(!silent.includes('"usage"'));
    const asked = await (await post(fake, {
      model: "gpt-4o",
      stream: true,
      stream_options: { include_usage: true },
    })).text();
    const usage = JSON.parse(blocks(asked).at(-2)!.slice(6)).usage;
    assert.ok(!("prompt_cache_hit_tokens" in usage));
    assert.deepEqual(Object.keys(usage.prompt_tokens_details), ["cached_tokens", "audio_tokens"]);
    assert.equal(usage.completion_tokens_details.reasoning_tokens, 0);
  });
});

Deno.test("fake splits the body into HTTP chunks of chunkBytes", async () => {
  await withFake({ script: [{ text: "chunked ✓ text", chunkBytes: 5 }] }, async (fake) => {
    const response = await post(fake, streamRequest);
    const sizes: number[] = [];
    const parts: Uint8Array[] = [];
    for await (const piece of response.body!) {
      sizes.push(piece.byteLength);
      parts.push(piece);
    }
    assert.ok(sizes.length > 20);
    assert.ok(sizes.every((n) => n <= 5), `sizes: ${sizes.join(",")}`);
    const text = new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p])));
    assert.ok(text.endsWith("data: [DONE]\n\n"));
  });
});

Deno.test("fake records requests and the byte prefix shared with the previous one", async () => {
  await withFake({ script: [{ status: 500 }, { status: 500 }, { status: 500 }] }, async (fake) => {
    for (const body of ['{"a":"ü1"}', '{"a":"ü2"}', "[]"]) {
      await (await post(fake, body, { headers: { "X-Trace": "t1" } })).text();
    }
    assert.deepEqual(fake.requests.map((r) => r.sharedPrefixBytes), [0, 8, 0]);
    const [first] = fake.requests;
    assert.equal(first.method, "POST");
    assert.equal(first.path, "/v1/chat/completions");
    assert.equal(first.headers["x-trace"], "t1");
    assert.equal(first.bodyText, '{"a":"ü1"}');
    assert.deepEqual(first.body, { a: "ü1" });
    assert.ok(Math.abs(first.time - Date.now()) < 5_000);
  });
});

Deno.test("fake answers 500 when the script is exhausted", async () => {
  await withFake({ script: [{ text: "only one" }] }, async (fake) => {
    await (await post(fake, streamRequest)).text();
    const response = await post(fake, streamRequest);
    assert.equal(response.status, 500);
    const body = await response.json();
    assert.match(
      body.error.message,
      /script exhausted: no step for request #2 \(the script has 1\)/,
    );
  });
  await withFake({ script: () => undefined }, async (fake) => {
    const response = await post(fake, streamRequest);
    assert.equal(response.status, 500);
    assert.match((await response.json()).error.message, /script exhausted/);
  });
  await withFake({
    script: () => {
      throw new Error("bad step");
    },
  }, async (fake) => {
    const response = await post(fake, streamRequest);
    assert.equal(response.status, 500);
    assert.match((await response.json()).error.message, /script threw: bad step/);
  });
});

Deno.test("fake answers 404 for other paths without consuming a step", async () => {
  await withFake({ script: [{ text: "hit" }] }, async (fake) => {
    const miss = await fetch(`${fake.url}/completions`, { method: "POST", body: "{}" });
    assert.equal(miss.status, 404);
    assert.equal((await miss.json()).error.message, "Invalid URL (POST /v1/completions)");
    const hit = await post(fake, streamRequest);
    assert.equal(hit.status, 200);
    assert.match(await hit.text(), /"content":"hit"/);
    assert.equal(fake.requests.length, 2);
  });
});

Deno.test("fake error steps produce realistic bodies and headers", async () => {
  await withFake({
    script: [
      { status: 401 },
      { status: 429 },
      { status: 503, body: "upstream connect error", headers: { "Retry-After": "7" } },
    ],
  }, async (fake) => {
    const key = "sk-proj-abcdefghijklmnop1234";
    const auth = await post(fake, streamRequest, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(auth.status, 401);
    const authBody = await auth.json();
    assert.equal(authBody.error.code, "invalid_api_key");
    assert.match(authBody.error.message, /^Incorrect API key provided: sk-\*+1234\./);
    assert.ok(!authBody.error.message.includes(key));
    const limited = await post(fake, streamRequest);
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get("retry-after"), "0");
    assert.deepEqual(Object.keys((await limited.json()).error), [
      "message",
      "type",
      "param",
      "code",
    ]);
    const raw = await post(fake, streamRequest);
    assert.equal(raw.status, 503);
    assert.equal(raw.headers.get("retry-after"), "7");
    assert.equal(raw.headers.get("content-type"), "text/plain; charset=utf-8");
    assert.equal(await raw.text(), "upstream connect error");
  });
});

Deno.test("fake resets look like connection failures to fetch", async () => {
  await withFake({
    script: [{ reset: "before-headers" }, {
      reset: "mid-stream",
      text: "some text",
      afterBytes: 300,
    }],
  }, async (fake) => {
    await assert.rejects(post(fake, streamRequest), TypeError);
    const response = await post(fake, streamRequest);
    assert.equal(response.status, 200);
    let received = 0;
    await assert.rejects(async () => {
      for await (const piece of response.body!) received += piece.byteLength;
    }, TypeError);
    assert.equal(received, 300);
  });
});

Deno.test("fake close() ends hung exchanges promptly", async () => {
  const fake = await startFakeLlm({
    script: [{ hang: "before-headers" }, { hang: "mid-stream", text: "abc", afterBytes: 50 }],
  });
  const pending = post(fake, streamRequest).then(
    (r) => r.text(),
    (e: unknown) => e,
  );
  const streaming = await post(fake, streamRequest);
  const reader = streaming.body!.getReader();
  const first = await reader.read();
  assert.equal(first.done, false);
  const started = performance.now();
  await fake.close();
  assert.ok(performance.now() - started < 1_000);
  assert.ok(await pending instanceof TypeError);
  await assert.rejects(async () => {
    while (!(await reader.read()).done) {
      // Drain what was sent before the close.
    }
  }, TypeError);
});

Deno.test("fake can keep connections alive between requests", async () => {
  await withFake({ keepAlive: true, script: [{ text: "one" }, { text: "two" }] }, async (fake) => {
    const first = await post(fake, streamRequest);
    assert.equal(first.headers.get("connection"), "keep-alive");
    assert.match(await first.text(), /one/);
    assert.match(await (await post(fake, streamRequest)).text(), /two/);
  });
});

Deno.test("fake main.ts serves a script file and prints its URL first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/steps.json`;
    await Deno.writeTextFile(script, JSON.stringify([{ text: "CLI" }]));
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./main.ts", import.meta.url).pathname, "--script", script],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let buffered = "";
    while (!buffered.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) break;
      buffered += value;
    }
    const url = buffered.split("\n")[0];
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify(streamRequest),
    });
    assert.match(await response.text(), /"content":"CLI"/);
    child.kill("SIGTERM");
    assert.equal((await child.status).code, 0);
    await lines.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
