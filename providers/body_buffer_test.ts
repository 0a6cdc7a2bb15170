import assert from "node:assert/strict";
import { BodyBuffer, sharedPrefix } from "./body_buffer.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Checks one encode against a whole re-encoding of the joined pieces. */
function check(buffer: BodyBuffer, pieces: string[], previous: Uint8Array | undefined) {
  const out = buffer.encode(pieces);
  const whole = encoder.encode(pieces.join(""));
  assert.equal(decoder.decode(out.bytes), pieces.join(""));
  assert.deepEqual(out.bytes, whole);
  assert.equal(out.sharedBytes, previous ? sharedPrefix(previous, whole) : 0);
  return whole;
}

Deno.test("an extended body is the joined pieces and shares exactly the previous bytes", () => {
  const buffer = new BodyBuffer();
  const head = '{"model":"m","messages":[';
  const messages = ['{"content":"héllo ✓"}', '{"content":"工具"}'];
  let previous = check(buffer, [head, messages[0], "]}"], undefined);
  previous = check(buffer, [head, messages[0], ",", messages[1], "]}"], previous);
  // The tail changes (a cap appears): only the tail is rewritten.
  previous = check(buffer, [head, messages[0], ",", messages[1], '],"max_tokens":9}'], previous);
  // A piece in the middle is rewritten with the same length: the bytes after it are new.
  previous = check(buffer, [head, '{"content":"héllo ✗"}', ",", messages[1], "]}"], previous);
  // The body shrinks.
  previous = check(buffer, [head, "]}"], previous);
  // Pieces that differ as objects but not in content are the same bytes.
  check(buffer, [`${head}`, "]}".slice(0)], previous);
});

Deno.test("a body larger than the buffer grows it and keeps what came before", () => {
  const buffer = new BodyBuffer();
  const pieces = ["{", "x".repeat(10), "}"];
  let previous = check(buffer, pieces, undefined);
  for (let i = 0; i < 40; i++) {
    pieces.splice(pieces.length - 1, 0, `,"${"y".repeat(100 * i)}✓"`);
    previous = check(buffer, [...pieces], previous);
  }
});

Deno.test("after a reset the next body is encoded whole and shares nothing", () => {
  const buffer = new BodyBuffer();
  buffer.encode(["{", "}"]);
  const generation = buffer.generation;
  buffer.reset();
  assert.ok(buffer.generation > generation, "bytes handed out before are stale");
  assert.equal(buffer.current.byteLength, 0);
  assert.equal(buffer.encode(["{", "}"]).sharedBytes, 0);
});

Deno.test("extending a body encodes only the new pieces and the tail", () => {
  const buffer = new BodyBuffer();
  const history = ['{"messages":[', '"a"'];
  assert.equal(buffer.encode([...history, "]}"]).encodedBytes, 18);
  for (let i = 0; i < 5; i++) {
    const message = `"message ${i}"`;
    history.push(",", message);
    const out = buffer.encode([...history, "]}"]);
    assert.equal(out.encodedBytes, 1 + message.length + 2, `turn ${i} costs its new bytes`);
  }
});
