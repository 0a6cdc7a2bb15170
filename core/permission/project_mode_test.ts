import assert from "node:assert/strict";
import { applyProjectMode } from "./mod.ts";
import type { PermissionsConfig } from "../config/types.ts";

const base: PermissionsConfig = { mode: "ask", allow: [], ask: [], deny: [] };

Deno.test("a project file may tighten the permission mode", () => {
  const { permissions, warning } = applyProjectMode({ ...base, project_mode: "readonly" }, false);
  assert.equal(permissions.mode, "read-only");
  assert.equal(warning, undefined);
});

Deno.test("a project file may not loosen the permission mode", () => {
  const { permissions, warning } = applyProjectMode(
    { ...base, project_mode: "yolo", project_mode_source: "/repo/reasonix.toml" },
    false,
  );
  assert.equal(permissions.mode, "ask");
  assert.match(
    warning!,
    /\/repo\/reasonix\.toml asks for permission mode "yolo", which is looser than "ask"/,
  );
});

Deno.test("an explicit --permission-mode wins over the project file", () => {
  const { permissions, warning } = applyProjectMode({
    ...base,
    mode: "auto",
    project_mode: "read-only",
  }, true);
  assert.equal(permissions.mode, "auto");
  assert.equal(warning, undefined);
});

Deno.test("an unknown project mode is a configuration error", () => {
  assert.throws(
    () => applyProjectMode({ ...base, project_mode: "careless" }, false),
    /unknown permission mode/,
  );
});
