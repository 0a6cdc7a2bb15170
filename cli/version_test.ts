import assert from "node:assert/strict";
import { DEV_VERSION, setVersion, version, versionReport } from "./version.ts";

Deno.test("the development version matches deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.equal(DEV_VERSION, config.version);
});

Deno.test("a development run reports no commit and the platform it runs on", () => {
  const report = versionReport();
  assert.deepEqual(report, {
    name: "reasonix",
    version: DEV_VERSION,
    commit: null,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    typescript: Deno.version.typescript,
    target: Deno.build.target,
  });
});

Deno.test("reasonix --version --json prints one JSON line; --version stays one plain line", async () => {
  const run = async (...args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-env",
        new URL("./main.ts", import.meta.url).pathname,
        ...args,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout);
  };
  const asJson = [
    ["--version", "--json"],
    ["--json", "--version"],
    ["-v", "--json"],
    // Other global options first: the command tree answers, the same way.
    ["-m", "some-model", "--version", "--json"],
    ["--permission-mode", "plan", "-v", "--json"],
  ];
  for (const args of asJson) {
    const text = await run(...args);
    assert.equal(text.split("\n").length, 2, text);
    assert.deepEqual(JSON.parse(text), versionReport(), args.join(" "));
  }
  assert.equal(await run("--version"), `reasonix ${DEV_VERSION}\n`);
  assert.equal(await run("-m", "some-model", "--version"), `reasonix ${DEV_VERSION}\n`);
});

Deno.test("a release build's version, commit and target replace the development ones", () => {
  try {
    setVersion("1.2.3", { commit: "abc123", target: "aarch64-apple-darwin" });
    assert.equal(version(), "1.2.3");
    const report = versionReport();
    assert.equal(report.commit, "abc123");
    assert.equal(report.target, "aarch64-apple-darwin");
  } finally {
    setVersion(DEV_VERSION);
  }
});
