import assert from "node:assert/strict";
import type { ApprovalRequest } from "../../core/agent/approval.ts";
import { UiApprovalBroker } from "./broker.ts";

function req(id: string): ApprovalRequest {
  return { id, kind: "tool", tool: "bash", summary: `bash: step ${id}` };
}

Deno.test("the broker queues requests in order and resolves each with the user's answer", async () => {
  const broker = new UiApprovalBroker();
  let changes = 0;
  broker.subscribe(() => changes++);
  const signal = new AbortController().signal;
  const first = broker.request(req("1"), { signal });
  const second = broker.request(req("2"), { signal });
  assert.equal(broker.current()?.id, "1");
  broker.answer("2", "deny");
  broker.answer("1", "session");
  assert.equal(await first, "session");
  assert.equal(await second, "deny");
  assert.equal(broker.current(), undefined);
  assert.equal(changes, 4);
});

Deno.test("a cancelled turn withdraws its pending request", async () => {
  const broker = new UiApprovalBroker();
  const controller = new AbortController();
  const pending = broker.request(req("x"), { signal: controller.signal });
  controller.abort(new DOMException("Cancelled by the user", "AbortError"));
  await assert.rejects(pending, (e: unknown) => e instanceof DOMException);
  assert.equal(broker.current(), undefined);
  broker.answer("x", "once");
  await assert.rejects(
    broker.request(req("y"), { signal: controller.signal }),
    (e: unknown) => e instanceof DOMException,
  );
});
