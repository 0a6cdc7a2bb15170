import assert from "node:assert/strict";
import {
  hashPassword,
  isPasswordHash,
  PBKDF2_ITERATIONS,
  secretsEqual,
  verifyPassword,
} from "./password.ts";

Deno.test("a password hash verifies its password and no other", async () => {
  const hash = await hashPassword("open sesame", { iterations: 2000 });
  assert.match(hash, /^pbkdf2-sha256\$2000\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  assert.ok(isPasswordHash(hash));
  assert.equal(await verifyPassword("open sesame", hash), true);
  assert.equal(await verifyPassword("open sesame ", hash), false);
  assert.equal(await verifyPassword("", hash), false);
  assert.notEqual(hash, await hashPassword("open sesame", { iterations: 2000 }), "salted");
});

Deno.test("a new hash uses the documented iteration count", async () => {
  assert.equal(PBKDF2_ITERATIONS, 600_000);
  const hash = await hashPassword("x");
  assert.equal(hash.split("$")[1], "600000");
});

Deno.test("a malformed hash matches nothing", async () => {
  for (const bad of ["", "plain", "pbkdf2-sha256$0$AAAAAAAAAAA=$AAAA", "md5$1$a$b"]) {
    assert.equal(isPasswordHash(bad), false, bad);
    assert.equal(await verifyPassword("plain", bad), false, bad);
  }
});

Deno.test("secretsEqual compares whole secrets", async () => {
  assert.equal(await secretsEqual("abc", "abc"), true);
  assert.equal(await secretsEqual("abc", "abd"), false);
  assert.equal(await secretsEqual("ab", "abc"), false);
  assert.equal(await secretsEqual("", "abc"), false);
});
