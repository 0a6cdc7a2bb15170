import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const MODULE = fileURLToPath(new URL("./deno_perms.ts", import.meta.url));

Deno.test("after the read-only lock-down the process can neither write nor start programs", async () => {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-perms-" });
  try {
    const script = join(dir, "probe.ts");
    await Deno.writeTextFile(
      script,
      `import { revokeWritePermissions } from ${JSON.stringify(MODULE)};
const target = Deno.args[0];
Deno.writeTextFileSync(target + "/before", "x");
await revokeWritePermissions();
let blocked = "";
try { Deno.writeTextFileSync(target + "/after", "x"); } catch (e) { blocked = (e as Error).name; }
let mkdir = "";
try { Deno.mkdirSync(target + "/dir"); } catch (e) { mkdir = (e as Error).name; }
let run = "";
try { new Deno.Command("echo", { args: ["still runs"] }).outputSync(); run = "ran"; }
catch (e) { run = (e as Error).name; }
console.log(JSON.stringify({ blocked, mkdir, run,
  write: (await Deno.permissions.query({ name: "write" })).state }));
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-config", "--allow-all", script, dir],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const result = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.deepEqual(result, {
      blocked: "NotCapable",
      mkdir: "NotCapable",
      run: "NotCapable",
      write: "denied",
    });
    assert.ok((await Deno.stat(join(dir, "before"))).isFile);
    await assert.rejects(() => Deno.stat(join(dir, "after")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
