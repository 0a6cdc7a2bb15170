import assert from "node:assert/strict";
import { ConfigError } from "./errors.ts";
import { reasonixHome } from "./home.ts";

Deno.test("reasonixHome prefers REASONIX_HOME on every platform", () => {
  const env = { REASONIX_HOME: "/custom/rx", HOME: "/home/u", APPDATA: "C:\\AppData" };
  assert.equal(reasonixHome(env, "linux"), "/custom/rx");
  assert.equal(reasonixHome(env, "windows"), "/custom/rx");
});

Deno.test("reasonixHome uses ~/.reasonix on Linux and macOS", () => {
  assert.equal(reasonixHome({ HOME: "/home/u" }, "linux"), "/home/u/.reasonix");
  assert.equal(reasonixHome({ HOME: "/Users/u" }, "darwin"), "/Users/u/.reasonix");
  assert.equal(reasonixHome({ USERPROFILE: "/home/x" }, "linux"), "/home/x/.reasonix");
});

Deno.test("reasonixHome uses %APPDATA%\\reasonix on Windows", () => {
  const env = { APPDATA: "C:\\Users\\u\\AppData\\Roaming", HOME: "/ignored" };
  assert.equal(reasonixHome(env, "windows"), "C:\\Users\\u\\AppData\\Roaming\\reasonix");
  assert.equal(
    reasonixHome({ USERPROFILE: "C:\\Users\\u" }, "windows"),
    "C:\\Users\\u\\AppData\\Roaming\\reasonix",
  );
});

Deno.test("reasonixHome accepts a Deno.env-like source and treats empty values as unset", () => {
  const values = new Map([["REASONIX_HOME", ""], ["HOME", "/home/g"]]);
  assert.equal(reasonixHome({ get: (k: string) => values.get(k) }, "linux"), "/home/g/.reasonix");
});

Deno.test("reasonixHome fails with a fix when no home is known", () => {
  assert.throws(() => reasonixHome({}, "linux"), (err: unknown) => {
    assert.ok(err instanceof ConfigError);
    assert.equal(err.code, "config_invalid");
    assert.match(err.message, /HOME is not set\nfix: set REASONIX_HOME/);
    return true;
  });
});
