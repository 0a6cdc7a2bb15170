import assert from "node:assert/strict";
import { startFakeLlm } from "../tests/fake_llm/mod.ts";
import { ProviderError } from "./errors.ts";
import { readSse, type SseEvent } from "./sse.ts";

const encoder = new TextEncoder();

/** A byte stream delivering exactly the given pieces, then closing. */
function bytesStream(pieces: Uint8Array[], onCancel?: () => void): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < pieces.length) controller.enqueue(pieces[i++]);
      else controller.close();
    },
    cancel() {
      onCancel?.();
    },
  });
}

/** Splits bytes into single-byte pieces. */
function everyByte(text: string): Uint8Array[] {
  return Array.from(encoder.encode(text), (b) => Uint8Array.of(b));
}

async function all(iterable: AsyncIterable<SseEvent>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

Deno.test("sse keeps multi-byte characters split across reads intact", async () => {
  const events = await all(readSse(bytesStream(everyByte("data: 你好, wörld 🚀\n\ndata: ✓\n\n"))));
  assert.deepEqual(events, [{ data: "你好, wörld 🚀" }, { data: "✓" }]);
});

Deno.test("sse handles CRLF split between CR and LF", async () => {
  const pieces = ["data: one\r", "\n\r", "\ndata: two\r\n", "\r\n"].map((s) => encoder.encode(s));
  assert.deepEqual(await all(readSse(bytesStream(pieces))), [{ data: "one" }, { data: "two" }]);
});

Deno.test("sse skips comments and keeps event and id fields", async () => {
  const text = ': keep-alive\n\nevent: message_start\nid: 7\ndata: {"a":1}\n\n: ping\n\n' +
    "data: line1\ndata: line2\n\n";
  assert.deepEqual(await all(readSse(bytesStream([encoder.encode(text)]))), [
    { event: "message_start", id: "7", data: '{"a":1}' },
    { data: "line1\nline2" },
  ]);
});

Deno.test("sse drops an event left unfinished at the end of the body", async () => {
  const events = await all(readSse(bytesStream([encoder.encode("data: whole\n\ndata: part")])));
  assert.deepEqual(events, [{ data: "whole" }]);
});

Deno.test("sse parses a real fake-server stream fed one byte at a time", async () => {
  const fake = await startFakeLlm({
    script: [{ text: "héllo — 世界", chunkBytes: 1, lineEnding: "crlf" }],
  });
  try {
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true }),
    });
    const events = await all(readSse(response.body!));
    assert.equal(events.at(-1)?.data, "[DONE]");
    const text = events.slice(0, -1)
      .map((e) => JSON.parse(e.data).choices[0]?.delta?.content ?? "")
      .join("");
    assert.equal(text, "héllo — 世界");
  } finally {
    await fake.close();
  }
});

Deno.test("sse cancels the body and throws provider_idle_timeout when bytes stop", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("data: first\n\n"));
    },
    cancel() {
      cancelled = true;
    },
  });
  const seen: SseEvent[] = [];
  await assert.rejects(
    (async () => {
      for await (const event of readSse(body, { idleTimeoutMs: 50, provider: "p" })) {
        seen.push(event);
      }
    })(),
    (error: unknown) =>
      error instanceof ProviderError && error.code === "provider_idle_timeout" &&
      error.retryable && error.message.startsWith("p: "),
  );
  assert.deepEqual(seen, [{ data: "first" }]);
  assert.ok(cancelled);
});

Deno.test("sse comments keep an otherwise idle stream alive", async () => {
  let timer: ReturnType<typeof setInterval> | undefined;
  let pings = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setInterval(() => {
        pings++;
        if (pings < 6) {
          controller.enqueue(encoder.encode(": keep-alive\n\n"));
        } else {
          clearInterval(timer);
          controller.enqueue(encoder.encode("data: finally\n\n"));
          controller.close();
        }
      }, 30);
    },
    cancel() {
      clearInterval(timer);
    },
  });
  assert.deepEqual(await all(readSse(body, { idleTimeoutMs: 100 })), [{ data: "finally" }]);
});

Deno.test("sse counts idle time only while a read waits, not while the consumer works", async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const n of [1, 2, 3]) controller.enqueue(encoder.encode(`data: ${n}\n\n`));
      controller.close();
    },
  });
  const seen: string[] = [];
  for await (const event of readSse(body, { idleTimeoutMs: 40 })) {
    seen.push(event.data);
    await new Promise((resolve) => setTimeout(resolve, 90));
  }
  assert.deepEqual(seen, ["1", "2", "3"]);
});

Deno.test("sse listens on the signal once per stream and lets go at the end", async () => {
  const chunks = 200;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await Promise.resolve();
      if (controller.desiredSize !== null && sent < chunks) {
        controller.enqueue(encoder.encode(`data: ${sent++}\n\n`));
      } else controller.close();
    },
  });
  let sent = 0;
  const signal = new AbortController().signal;
  const added: unknown[] = [];
  const removed: unknown[] = [];
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    o?: boolean | AddEventListenerOptions,
  ) => {
    added.push(listener);
    add(type, listener, o);
  };
  signal.removeEventListener = (type: string, listener: EventListenerOrEventListenerObject) => {
    removed.push(listener);
    remove(type, listener);
  };
  const events = await all(readSse(body, { signal, idleTimeoutMs: 5_000 }));
  assert.equal(events.length, chunks);
  assert.equal(added.length, 1);
  assert.deepEqual(removed, added);
});

Deno.test("sse abort throws the signal's reason and cancels the body", async () => {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    cancel() {
      cancelled = true;
    },
  });
  const controller = new AbortController();
  const reason = new Error("stop");
  setTimeout(() => controller.abort(reason), 20);
  await assert.rejects(
    all(readSse(body, { signal: controller.signal, idleTimeoutMs: 5_000 })),
    (e) => e === reason,
  );
  assert.ok(cancelled);
});

Deno.test("sse reports a body that breaks as a retryable network error", async () => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("data: a\n\n"));
      controller.error(new TypeError("error reading a body from connection"));
    },
  });
  await assert.rejects(
    all(readSse(body)),
    (error: unknown) =>
      error instanceof ProviderError && error.code === "provider_network" && error.retryable &&
      /error reading a body/.test(error.message),
  );
});

Deno.test("sse refuses an event that grows past the buffer cap", async () => {
  const pieces = [
    encoder.encode("data: "),
    ...Array.from({ length: 5 }, () => encoder.encode("x".repeat(100))),
  ];
  await assert.rejects(
    all(readSse(bytesStream(pieces), { maxBufferSize: 256 })),
    (error: unknown) => error instanceof ProviderError && error.code === "provider_stream",
  );
});
