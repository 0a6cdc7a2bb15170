/**
 * Runs every client scenario of the official MCP conformance suite
 * (`@modelcontextprotocol/conformance`, under Deno) against `client.ts`, which drives
 * Reasonix's own MCP plugin layer. A scenario that fails in the parallel suite run is run once
 * more on its own: `sse-retry` measures reconnect timing to ±200 ms, which a loaded 2-core
 * machine can miss while 26 clients start at once. Every scenario must pass with at least one
 * check (so nothing passes vacuously).
 */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";
const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CLIENT = join(ROOT, "tests", "mcp_conformance", "client.ts");
const COMMAND = `exec ${Deno.execPath()} run -A --quiet --config ${
  join(ROOT, "deno.json")
} ${CLIENT}`;
/** The client scenarios of 0.1.16 (`--suite all`). */
const SCENARIOS = 26;

interface ScenarioResult {
  name: string;
  passed: number;
  failed: number;
  warnings: number;
}

async function conformance(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = Deno.env.toObject();
  delete env.MCP_CONFORMANCE_SCENARIO;
  delete env.MCP_CONFORMANCE_CONTEXT;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", CONFORMANCE, "client", "--command", COMMAND, ...args],
    cwd: ROOT,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(300_000),
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

function parseSummary(stdout: string): ScenarioResult[] {
  const results: ScenarioResult[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^[✓✗] (\S+): (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/.exec(line.trim());
    if (m) {
      results.push({
        name: m[1],
        passed: Number(m[2]),
        failed: Number(m[3]),
        warnings: Number(m[4] ?? 0),
      });
    }
  }
  return results;
}

/** Single-scenario mode prints `Passed: x/y, n failed, m warnings` on stderr. */
function parseSingle(output: string): { passed: number; failed: number; warnings: number } {
  const m = /Passed: (\d+)\/\d+, (\d+) failed, (\d+) warnings/.exec(output);
  if (!m) return { passed: 0, failed: 1, warnings: 0 };
  return { passed: Number(m[1]), failed: Number(m[2]), warnings: Number(m[3]) };
}

Deno.test("the official MCP conformance suite passes every client scenario", async () => {
  const suite = await conformance(["--suite", "all"]);
  const results = parseSummary(suite.stdout);
  assert.equal(results.length, SCENARIOS, `${suite.stdout}\n${suite.stderr}`);
  for (const r of results) {
    if (r.failed === 0 && r.warnings === 0 && r.passed > 0) continue;
    const single = await conformance(["--scenario", r.name]);
    const again = parseSingle(single.stderr + single.stdout);
    assert.equal(single.code, 0, `${r.name} failed twice:\n${single.stderr}`);
    Object.assign(r, again);
  }
  for (const r of results) {
    assert.ok(r.passed > 0, `${r.name} passed vacuously`);
    assert.equal(r.failed, 0, `${r.name}: ${r.failed} failed`);
    assert.equal(r.warnings, 0, `${r.name}: ${r.warnings} warnings`);
  }
  const total = results.reduce((n, r) => n + r.passed, 0);
  console.log(
    `MCP conformance: ${results.length}/${SCENARIOS} client scenarios, ${total} checks passed, ` +
      "0 failed, 0 warnings",
  );
});
