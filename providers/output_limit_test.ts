import assert from "node:assert/strict";
import { ContextOverflowError, ProviderError } from "./errors.ts";
import { OutputLimitMemory, parseOutputLimit, streamWithOutputLimit } from "./output_limit.ts";
import type { Chunk, ProviderRequest } from "./types.ts";

Deno.test("parseOutputLimit reads the limit as each server words it", () => {
  assert.equal(
    parseOutputLimit(
      "x: HTTP 400: max_tokens: 400000 > 393216, which is the maximum allowed number of output tokens for deepseek-v4-flash",
    ),
    393216,
  );
  assert.equal(
    parseOutputLimit(
      "max_tokens is too large: 500000. This model supports at most 16384 completion tokens, whereas you provided 500000.",
    ),
    16384,
  );
  assert.equal(
    parseOutputLimit("Invalid max_tokens value, the valid range of max_tokens is [1, 8192]"),
    8192,
  );
  assert.equal(parseOutputLimit("max_tokens must be less than or equal to 4096"), 4096);
  assert.equal(
    parseOutputLimit(
      "Invalid 'max_output_tokens': integer above maximum value. Expected a value <= 128000, but got 500000 instead.",
    ),
    128000,
  );
  assert.equal(parseOutputLimit("maximum context length is 65536 tokens"), undefined);
  assert.equal(parseOutputLimit("Unsupported parameter: 'temperature'"), undefined);
});

Deno.test("OutputLimitMemory only ever lowers the limit", () => {
  const memory = new OutputLimitMemory();
  assert.equal(memory.clamp(100), 100);
  assert.equal(memory.learn(50), true);
  assert.equal(memory.learn(80), false);
  assert.equal(memory.limit, 50);
  assert.equal(memory.clamp(100), 50);
  assert.equal(memory.clamp(undefined), undefined);
});

const base: ProviderRequest = { model: "m", system: "s", messages: [], tools: [] };

Deno.test("streamWithOutputLimit resends once with the learned cap", async () => {
  const sent: (number | undefined)[] = [];
  const learned: number[] = [];
  const memory = new OutputLimitMemory();
  const chunks: Chunk[] = [];
  for await (
    const chunk of streamWithOutputLimit({ ...base, maxOutputTokens: 9000 }, {
      memory: memory,
      run: async function* (req) {
        sent.push(req.maxOutputTokens);
        if (sent.length === 1) {
          throw new ProviderError("provider_bad_request", "max_tokens: 9000 > 4096, too many");
        }
        yield { type: "done", finishReason: "stop" };
      },
      onLearn: (limit) => learned.push(limit),
    })
  ) chunks.push(chunk);
  assert.deepEqual(sent, [9000, 4096]);
  assert.deepEqual(learned, [4096]);
  assert.equal(chunks.length, 1);
});

Deno.test("streamWithOutputLimit leaves other failures alone", async () => {
  const cases: unknown[] = [
    new ContextOverflowError("max_tokens: 9000 > 4096"),
    new ProviderError("provider_bad_request", "bad field"),
    new TypeError("boom"),
  ];
  for (const failure of cases) {
    let calls = 0;
    await assert.rejects(
      (async () => {
        for await (
          const _ of streamWithOutputLimit({ ...base, maxOutputTokens: 9000 }, {
            memory: new OutputLimitMemory(),
            run: // deno-lint-ignore require-yield
              async function* () {
                calls++;
                throw failure;
              },
          })
        ) { /* nothing */ }
      })(),
      (error: unknown) => error === failure,
    );
    assert.equal(calls, 1);
  }
});
