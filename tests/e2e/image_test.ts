/**
 * End to end: `reasonix run --image` through the real CLI. A text-only executor gets the
 * description from a vision model on a second fake server; bad attachments and a model that
 * cannot use images are usage errors (exit 2) before anything is sent.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startFakeLlm } from "../fake_llm/mod.ts";
import { makeHome, makeRepo, runReasonix } from "./support.ts";

// A real 1x1 PNG.
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

type ChatBody = { model: string; messages: { role: string; content: unknown }[] };

/** A DeepSeek-style usage object with no cache hits. */
function usage(prompt: number, completion: number): Record<string, unknown> {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0 },
    prompt_cache_hit_tokens: 0,
    prompt_cache_miss_tokens: prompt,
  };
}

async function repoWithImage(): Promise<string> {
  const repo = await makeRepo({ "notes.txt": "not an image\n" });
  await Deno.writeFile(
    join(repo, "shot.png"),
    Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0)),
  );
  return repo;
}

Deno.test("reasonix run --image describes the image for a text-only model", async () => {
  const exec = await startFakeLlm({
    script: [{ text: "The picture is a single pixel.", usage: usage(700, 9) }],
  });
  const eyes = await startFakeLlm({
    script: [{ text: "A 1x1 image: one grey pixel, no text.", usage: usage(5000, 40) }],
  });
  const repo = await repoWithImage();
  const home = await makeHome(
    exec.url,
    `
[agent]
vision_model = "eyes/eye-model"

[[providers]]
name = "eyes"
kind = "openai"
base_url = "${eyes.url}"
models = ["eye-model"]
images = true
api_key_env = "REASONIX_E2E_KEY"
context_window = 128000
`,
  );
  try {
    const result = await runReasonix(
      ["run", "--json", "--image", "shot.png", "what is in the picture?"],
      { cwd: repo, home },
    );
    assert.equal(result.code, 0, result.stderr);
    const summary = JSON.parse(result.stdout);
    assert.equal(summary.result, "The picture is a single pixel.");
    assert.deepEqual(
      summary.tokens,
      { prompt: 5700, completion: 49, cache_hit: 0, cache_miss: 5700 },
      "the description request counts toward the run's tokens",
    );
    assert.match(result.stderr, /note: image 1 described by eyes\/eye-model/);

    assert.equal(eyes.requests.length, 1);
    const asked = (eyes.requests[0].body as ChatBody).messages.at(-1)!.content as {
      type: string;
      image_url?: { url: string };
    }[];
    assert.equal(asked.at(-1)?.image_url?.url, `data:image/png;base64,${PNG_BASE64}`);

    assert.equal(exec.requests.length, 1);
    assert.ok(!exec.requests[0].bodyText.includes(PNG_BASE64), "the image reached the executor");
    const user = (exec.requests[0].body as ChatBody).messages.at(-1)!;
    assert.equal(user.role, "user");
    assert.match(
      user.content as string,
      /what is in the picture\?\n\n<image-description version="1" model="eyes\/eye-model" index="1">\nA 1x1 image: one grey pixel, no text\.\n<\/image-description>$/,
    );
  } finally {
    await exec.close();
    await eyes.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("reasonix run --image refuses bad attachments and text-only models with exit 2", async () => {
  const fake = await startFakeLlm({ script: [] });
  const repo = await repoWithImage();
  const home = await makeHome(fake.url);
  try {
    await Deno.writeFile(join(repo, "huge.png"), new Uint8Array(10 * 1024 * 1024 + 1));
    const cases: [string[], RegExp][] = [
      [["--image", "missing.png"], /--image missing\.png: no such file/],
      [["--image", "notes.txt"], /--image notes\.txt: not a PNG, JPEG, GIF or WebP image/],
      [["--image", "huge.png"], /--image huge\.png: 10485761 bytes is over the 10\.0 MiB limit/],
      [
        ["--image", "shot.png"],
        /model fake\/fake-model cannot read images\nfix: set agent\.vision_model = "auto"/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await runReasonix(["run", ...args, "look"], { cwd: repo, home });
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.match(result.stderr, message);
    }
    assert.equal(fake.requests.length, 0);
  } finally {
    await fake.close();
    await Deno.remove(repo, { recursive: true });
    await Deno.remove(home, { recursive: true });
  }
});
