import assert from "node:assert/strict";
import { IMAGE_TOKENS, TokenEstimator } from "./estimator.ts";

Deno.test("the estimate grows with text and counts attached images", () => {
  const e = new TokenEstimator();
  const text = e.rawMessage({ role: "user", content: "x".repeat(350) });
  assert.equal(text, 100 + 4);
  const withImage = e.rawMessage({
    role: "user",
    content: "x".repeat(350),
    images: [{ mediaType: "image/png", data: "AAAA" }],
  });
  assert.equal(withImage - text, IMAGE_TOKENS);
});

Deno.test("real prompt counts recalibrate the estimate, within bounds", () => {
  const e = new TokenEstimator();
  e.observe(1000, 2000);
  assert.ok(e.scale > 1.5 && e.scale < 2);
  e.observe(1000, 1_000_000);
  assert.ok(e.scale <= 4);
  assert.equal(e.calibrated(100), Math.ceil(100 * e.scale));
});
