import assert from "node:assert/strict";
import { startFakeLlm } from "../tests/fake_llm/mod.ts";
import type { FakeFormat } from "../tests/fake_llm/mod.ts";
import { CacheMeter } from "../core/context/cache_meter.ts";
import { createProvider } from "./registry.ts";
import type { Message, ProviderRequest } from "./types.ts";
import "./builtin_kinds.ts";

const KINDS: { kind: string; format: FakeFormat }[] = [
  { kind: "openai", format: "openai" },
  { kind: "anthropic", format: "anthropic" },
  { kind: "responses", format: "responses" },
];

/** A conversation growing by one tool round per request, then a rewrite of an old result. */
function requests(): ProviderRequest[] {
  const messages: Message[] = [{ role: "user", content: "read them — all ✓" }];
  const tools = [{
    name: "read_file",
    description: "Reads a file.",
    parameters: { type: "object", properties: { path: { type: "string" } } },
  }];
  const out: ProviderRequest[] = [];
  for (let i = 0; i < 5; i++) {
    out.push({ model: "fake-model", system: "Be terse.", messages: [...messages], tools });
    messages.push({
      role: "assistant",
      content: i % 2 ? "" : `Reading f${i}.`,
      toolCalls: [{ id: `call_${i}`, name: "read_file", arguments: `{"path":"f${i}"}` }],
    });
    messages.push({
      role: "tool",
      toolCallId: `call_${i}`,
      name: "read_file",
      content: `工具 ${i}`,
    });
  }
  // A planned rewrite: an early result shown shortened.
  messages[2] = { ...messages[2], content: "[pruned]" };
  out.push({ model: "fake-model", system: "Be terse.", messages: [...messages], tools });
  // The cap appears after the messages.
  out.push({ ...out.at(-1)!, maxOutputTokens: 512 });
  return out;
}

for (const { kind, format } of KINDS) {
  Deno.test(`${kind}: the meter measures, from its buffer, exactly the bytes stream sends`, async () => {
    const fake = await startFakeLlm({ format, script: () => ({ text: "ok" }) });
    try {
      const kinds: string[] = [];
      const provider = createProvider(kind, {
        name: "fake",
        model: "fake-model",
        baseUrl: fake.url,
        apiKey: "sk-test",
        fetch: (input, init) => {
          kinds.push(init?.body instanceof Uint8Array ? "bytes" : typeof init?.body);
          return fetch(input, init);
        },
      });
      const meter = CacheMeter.for(provider);
      const signal = new AbortController().signal;
      for (const [i, req] of requests().entries()) {
        const seen = meter.observe(req, { turn: i });
        for await (const _ of provider.stream(req, { signal })) { /* drain */ }
        const sent = fake.requests[i];
        assert.equal(sent.bodyText, provider.body!(req), `request ${i} is the wire body`);
        assert.notEqual(sent.body, undefined, `request ${i} is JSON`);
        assert.equal(seen.bytes, new TextEncoder().encode(sent.bodyText).byteLength);
        assert.equal(seen.cachedBytes, sent.sharedPrefixBytes, `request ${i} shared bytes`);
      }
      // One encoding: the bytes the meter measured are the bytes fetch was given.
      assert.deepEqual(kinds, requests().map(() => "bytes"));
    } finally {
      await fake.close();
    }
  });
}
