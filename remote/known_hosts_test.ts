import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { fingerprint, knownHostsName, verifyHostKey } from "./known_hosts.ts";

/** A fake ed25519 key blob: string "ssh-ed25519", then 32 key bytes. */
function blob(seed: number): Uint8Array {
  const type = new TextEncoder().encode("ssh-ed25519");
  const out = new Uint8Array(4 + type.length + 4 + 32);
  const view = new DataView(out.buffer);
  view.setUint32(0, type.length);
  out.set(type, 4);
  view.setUint32(4 + type.length, 32);
  out.fill(seed, 8 + type.length);
  return out;
}

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");

function lines(text: string) {
  return text.split("\n").filter(Boolean).map((l, i) => {
    const f = l.split(" ");
    const marker = f[0].startsWith("@") ? f.shift()! : "";
    return { file: "/kh", line: i + 1, marker, hosts: f[0], type: f[1], key: f[2] } as never;
  });
}

Deno.test("known, changed, unknown and revoked keys are told apart", () => {
  const name = knownHostsName("10.0.0.1", 2222);
  assert.equal(name, "[10.0.0.1]:2222");
  assert.equal(knownHostsName("h", 22), "h");
  const known = lines(
    `other ssh-ed25519 ${b64(blob(9))}\n[10.0.0.1]:2222 ssh-ed25519 ${b64(blob(1))}`,
  );
  assert.deepEqual(verifyHostKey(known, name, blob(1)), { kind: "known", file: "/kh", line: 2 });
  assert.deepEqual(verifyHostKey(known, name, blob(2)), { kind: "changed", file: "/kh", line: 2 });
  assert.deepEqual(verifyHostKey(known, "[10.0.0.1]:22", blob(1)), {
    kind: "unknown",
    knownTypes: [],
  });
  const revoked = lines(
    `@revoked * ssh-ed25519 ${b64(blob(1))}\n${name} ssh-ed25519 ${b64(blob(1))}`,
  );
  assert.equal(verifyHostKey(revoked, name, blob(1)).kind, "revoked");
});

Deno.test("hashed names, patterns and negation match like OpenSSH", () => {
  const salt = Buffer.from("0123456789abcdefghij");
  const hash = createHmac("sha1", salt).update("example.com").digest("base64");
  const hashed = lines(`|1|${salt.toString("base64")}|${hash} ssh-ed25519 ${b64(blob(3))}`);
  assert.equal(verifyHostKey(hashed, "example.com", blob(3)).kind, "known");
  assert.equal(verifyHostKey(hashed, "example.org", blob(3)).kind, "unknown");
  const patterns = lines(`*.corp,!bad.corp ssh-ed25519 ${b64(blob(4))}`);
  assert.equal(verifyHostKey(patterns, "a.corp", blob(4)).kind, "known");
  assert.equal(verifyHostKey(patterns, "bad.corp", blob(4)).kind, "unknown");
  assert.equal(verifyHostKey(patterns, "a.corpx", blob(4)).kind, "unknown");
});

Deno.test("fingerprints are SHA256 base64 without padding, as ssh-keygen -l prints them", () => {
  assert.match(fingerprint(blob(1)), /^SHA256:[A-Za-z0-9+/]{43}$/);
});
