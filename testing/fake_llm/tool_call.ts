/**
 * Building the fake model's tool calls.
 *
 * @module
 */
import type { FakeToolCall } from "./types.ts";

/**
 * A tool call of the fake model with `args` as its argument JSON; without `id`, the server
 * generates one.
 *
 * @example A step that reads a file
 * ```ts
 * import { fakeToolCall, startFakeLlm } from "@reasonix/reasonix/testing";
 *
 * const fake = await startFakeLlm({
 *   script: [{ toolCalls: [fakeToolCall("read_file", { path: "README.md" })] }, { text: "done" }],
 * });
 * await fake.close();
 * ```
 */
export function fakeToolCall(name: string, args: unknown, id?: string): FakeToolCall {
  const call: FakeToolCall = { name, arguments: JSON.stringify(args) };
  if (id !== undefined) call.id = id;
  return call;
}
