import assert from "node:assert/strict";
import { refusalBlock, RefusalLedger, splitFix } from "./refusals.ts";

const call = { id: "c1", name: "bash", arguments: '{"command":"npm test"}' };

Deno.test("calls that needed an approver, or could not start, are refused; deny rules are not", () => {
  const ledger = new RefusalLedger();
  ledger.event({ type: "tool_start", call });
  ledger.event({
    type: "permission",
    callId: "c1",
    tool: "bash",
    decision: "ask",
    allowed: false,
    preset: "ask",
    reason:
      'Not run: bash `npm test` needs approval. To allow it, pass --allow "Bash(npm test:*)".',
  });
  // The same call reported again by another channel counts once.
  ledger.event({
    type: "permission",
    callId: "c1",
    tool: "bash",
    decision: "ask",
    allowed: false,
    preset: "ask",
  });
  ledger.event({
    type: "permission",
    callId: "c2",
    tool: "bash",
    decision: "deny",
    allowed: false,
    preset: "ask",
  });
  ledger.event({
    type: "permission",
    callId: "c3",
    tool: "bash",
    decision: "ask",
    allowed: true,
    preset: "ask",
  });
  const c4 = { id: "c4", name: "mcp__db__query", arguments: "{}" };
  ledger.event({ type: "tool_start", call: c4 });
  ledger.event({
    type: "tool_end",
    call: c4,
    result: {
      content: 'MCP server "db" is not trusted. To allow it, run reasonix trust.',
      isError: true,
      code: "unavailable",
    },
    durationMs: 1,
  });
  assert.deepEqual(ledger.entries, [
    {
      tool: "bash",
      summary: "bash npm test",
      reason: "Not run: bash `npm test` needs approval.",
      fix: 'To allow it, pass --allow "Bash(npm test:*)".',
    },
    {
      tool: "mcp__db__query",
      summary: "mcp__db__query",
      reason: 'MCP server "db" is not trusted.',
      fix: "To allow it, run reasonix trust.",
    },
  ]);
  ledger.beginTurn();
  assert.deepEqual(ledger.turn, []);
});

Deno.test("the stderr block keeps every fix whole", () => {
  const fix = `To allow it, pass ${'--allow "Bash(x:*)" '.repeat(20)}`.trim();
  const block = refusalBlock([{ tool: "bash", summary: "bash x", reason: "Not run.", fix }]);
  assert.equal(
    block,
    `1 action was refused (exit code 3):\n  ✗ bash x\n    Not run.\n    ${fix}\n`,
  );
  assert.equal(refusalBlock([]), "");
  assert.deepEqual(splitFix("no way out"), { reason: "no way out", fix: null });
});
