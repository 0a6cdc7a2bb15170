import assert from "node:assert/strict";
import { base64Cores, redactSecrets, secretRedactor } from "./redact.ts";

const KEY = "sk-test/Key+Value=0123456789abcdefXYZ";

function b64(text: string): string {
  return btoa(text);
}

function urlSafe(text: string): string {
  return text.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

Deno.test("redactSecrets removes the key as written and in every encoding a proxy may echo", () => {
  const bytes = [...new TextEncoder().encode(KEY)];
  const forms = [
    KEY,
    b64(KEY),
    urlSafe(b64(KEY)),
    b64(`Bearer ${KEY}`),
    b64(`user:${KEY}`),
    b64(`ab${KEY}`),
    urlSafe(b64(`x${KEY}yz`)),
    encodeURIComponent(KEY),
    bytes.map((b) => `%${b.toString(16).padStart(2, "0")}`).join(""),
    [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0").toUpperCase()}`)
      .join(""),
    KEY.replaceAll("/", "\\/"),
    JSON.stringify(KEY).slice(1, -1),
    bytes.map((b) => b.toString(16).padStart(2, "0")).join(""),
    bytes.map((b) => b.toString(16).padStart(2, "0")).join("").toUpperCase(),
    `${KEY.slice(0, 10)}\n${KEY.slice(10)}`,
    `${KEY.slice(0, 10)}\\n${KEY.slice(10)}`,
  ];
  for (const form of forms) {
    const out = redactSecrets(`before ${form} after`, [KEY]);
    // Base64 of a longer text keeps the characters that encode only the other bytes.
    assert.match(out, /^before [A-Za-z0-9]*\[redacted\][A-Za-z0-9]* after$/, `${form} -> ${out}`);
  }
});

Deno.test("redactSecrets removes long fragments of a key quoted apart, and no ordinary text", () => {
  const half = KEY.length / 2;
  const out = redactSecrets(
    `first ${KEY.slice(0, half)} then ${KEY.slice(half)} and the rest`,
    [KEY],
  );
  assert.equal(out, "first [redacted] then [redacted] and the rest");
  // Short runs of the key's characters stay: "sk-test" or "0123" are ordinary text.
  assert.equal(redactSecrets("sk-test 0123456789 abc", [KEY]), "sk-test 0123456789 abc");
  assert.equal(redactSecrets("short abc", ["abc"]), "short abc");
  assert.equal(redactSecrets("nothing here", []), "nothing here");
});

Deno.test("base64 of any text holding the secret contains one of its three cores", () => {
  const cores = base64Cores(KEY);
  for (const prefix of ["", "a", "ab", "abc", "Bearer ", "user:"]) {
    for (const suffix of ["", "x", "xy"]) {
      const text = b64(prefix + KEY + suffix);
      assert.ok(cores.some((c) => text.includes(c)), `${prefix}|${suffix}`);
    }
  }
});

Deno.test("a redactor's span covers the longest escaped form", () => {
  const r = secretRedactor([KEY]);
  const escaped = [...KEY].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)
    .join("\n");
  assert.ok(r.span >= escaped.length);
  assert.equal(r.redact(escaped), "[redacted]");
});

Deno.test("redactPrefix never lets a key streamed in small pieces through", () => {
  const r = secretRedactor([KEY]);
  const stream = `start ${KEY} middle ${btoa(KEY)} end`;
  for (const size of [1, 3, 7, 50]) {
    let out = "";
    let rest = "";
    for (let i = 0; i < stream.length; i += size) {
      const step = r.redactPrefix(rest + stream.slice(i, i + size));
      out += step.text;
      rest = step.rest;
    }
    out += r.redact(rest);
    assert.equal(out, "start [redacted] middle [redacted] end", `pieces of ${size}`);
  }
});
