import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import {
  ImageInputError,
  loadImage,
  loadImages,
  MAX_IMAGE_BYTES,
  sniffImageType,
} from "./image_input.ts";

const bytes = (...parts: (number[] | string)[]): Uint8Array =>
  new Uint8Array(
    parts.flatMap((p) => typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p),
  );

/** Signatures of real files, padded with a few body bytes. */
const SAMPLES = {
  "image/png": bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], [0, 0, 0, 13], "IHDR"),
  "image/jpeg": bytes([0xff, 0xd8, 0xff, 0xe0, 0, 16], "JFIF"),
  "image/gif": bytes("GIF89a", [1, 0, 1, 0]),
  "image/webp": bytes("RIFF", [36, 0, 0, 0], "WEBPVP8 "),
} as const;

async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "reasonix-image-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sniffImageType recognizes png, jpeg, gif and webp by their signatures", () => {
  for (const [type, sample] of Object.entries(SAMPLES)) {
    assert.equal(sniffImageType(sample), type);
  }
  assert.equal(sniffImageType(bytes("GIF87a")), "image/gif");
  assert.equal(sniffImageType(bytes("RIFF", [0, 0, 0, 0], "WAVE")), undefined);
  assert.equal(sniffImageType(bytes("%PDF-1.7")), undefined);
  assert.equal(sniffImageType(new Uint8Array()), undefined);
});

Deno.test("loadImage reads a file as base64 with the type its contents show", async () => {
  await withDir(async (dir) => {
    // The extension lies; the contents decide.
    await Deno.writeFile(join(dir, "shot.png"), SAMPLES["image/jpeg"]);
    const image = await loadImage("shot.png", { cwd: dir });
    assert.deepEqual(image, {
      mediaType: "image/jpeg",
      data: Buffer.from(SAMPLES["image/jpeg"]).toString("base64"),
    });
  });
});

Deno.test("loadImage passes http(s) URLs on without fetching them", async () => {
  assert.deepEqual(await loadImage("https://example.com/a.png", { cwd: "/nonexistent" }), {
    url: "https://example.com/a.png",
  });
  assert.deepEqual(await loadImage("HTTP://example.com/b", { cwd: "/nonexistent" }), {
    url: "http://example.com/b",
  });
});

Deno.test("loadImage refuses a missing file, a directory and a non-image", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(join(dir, "notes.txt"), "just text");
    await assert.rejects(
      () => loadImage("nope.png", { cwd: dir }),
      (e: unknown) =>
        e instanceof ImageInputError && e.code === "image_input" &&
        e.message === "--image nope.png: no such file",
    );
    await assert.rejects(
      () => loadImage(".", { cwd: dir }),
      (e: unknown) => e instanceof ImageInputError && /not a regular file/.test(e.message),
    );
    await assert.rejects(
      () => loadImage("notes.txt", { cwd: dir }),
      (e: unknown) =>
        e instanceof ImageInputError && /not a PNG, JPEG, GIF or WebP image/.test(e.message),
    );
  });
});

Deno.test("loadImage refuses a file over the size cap before reading it", async () => {
  await withDir(async (dir) => {
    const big = new Uint8Array(MAX_IMAGE_BYTES + 1);
    big.set(SAMPLES["image/png"]);
    await Deno.writeFile(join(dir, "big.png"), big);
    await assert.rejects(
      () => loadImage("big.png", { cwd: dir }),
      (e: unknown) => e instanceof ImageInputError && /over the 10\.0 MiB limit/.test(e.message),
    );
    // Exactly at the cap is fine.
    await Deno.writeFile(join(dir, "edge.png"), big.subarray(0, MAX_IMAGE_BYTES));
    const edge = await loadImage("edge.png", { cwd: dir });
    assert.equal("mediaType" in edge && edge.mediaType, "image/png");
  });
});

Deno.test("loadImages keeps the order and stops at the first bad attachment", async () => {
  await withDir(async (dir) => {
    await Deno.writeFile(join(dir, "a.gif"), SAMPLES["image/gif"]);
    await Deno.writeFile(join(dir, "b.webp"), SAMPLES["image/webp"]);
    const images = await loadImages(["b.webp", "https://x.test/c.png", "a.gif"], { cwd: dir });
    assert.deepEqual(
      images.map((i) => "url" in i ? i.url : i.mediaType),
      ["image/webp", "https://x.test/c.png", "image/gif"],
    );
    await assert.rejects(() => loadImages(["a.gif", "missing.gif"], { cwd: dir }), ImageInputError);
  });
});
