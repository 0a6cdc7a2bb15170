import assert from "node:assert/strict";
import { EventRing } from "./ring.ts";

Deno.test("the ring replays exactly the events after an id it holds", () => {
  const ring = new EventRing({ capacity: 4, epoch: "abc" });
  const ids = [1, 2, 3, 4, 5, 6].map((n) => ring.push({ n }));
  assert.deepEqual(ids, ["abc-1", "abc-2", "abc-3", "abc-4", "abc-5", "abc-6"]);
  assert.equal(ring.size, 4);
  const after = (id: string) => {
    const r = ring.since(id);
    return r.kind === "events" ? r.entries.map((e) => JSON.parse(e.data).n) : r.kind;
  };
  assert.deepEqual(after("abc-2"), [3, 4, 5, 6], "the oldest held is the one after");
  assert.deepEqual(after("abc-4"), [5, 6]);
  assert.deepEqual(after("abc-6"), []);
  assert.equal(after("abc-1"), "resync", "event 2 is gone");
  assert.equal(after("abc-0"), "resync");
  assert.equal(after("abc-7"), "resync", "ahead of the stream");
  assert.equal(after("xyz-5"), "resync", "another epoch");
  assert.equal(after("nonsense"), "resync");
  const fresh = ring.since(undefined);
  assert.deepEqual(fresh, { kind: "events", entries: [] });
});

Deno.test("subscribers get each event once, in order", () => {
  const ring = new EventRing({ capacity: 2 });
  const seen: string[] = [];
  const stop = ring.subscribe((e) => seen.push(e.id));
  ring.push(1);
  ring.push(2);
  ring.push(3);
  stop();
  ring.push(4);
  assert.deepEqual(seen.map((id) => Number(id.split("-")[1])), [1, 2, 3]);
  assert.equal(ring.subscribers, 0);
});
