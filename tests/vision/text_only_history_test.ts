/**
 * A model without image support never receives image parts (issue 13, point 9): a session whose
 * stored turns carry images is resumed under a text-only model, switched to one (`/model`
 * reopens the session with the new model), or resumed after `images = false` was declared;
 * fixed placeholder text stands in, the same bytes on every request. A stored description
 * stays as it is when `vision_model` changes. Real host, fake LLM servers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openTestAgent, type TestAgent } from "../support/host_agent.ts";
import { imagePlaceholder } from "../../providers/capabilities.ts";
import type { ImagePart } from "../../providers/types.ts";
import {
  type FakeLlm,
  type FakeScript,
  type RecordedRequest,
  startFakeLlm,
} from "../fake_llm/mod.ts";

const PNG_DATA = "iVBORw0KGgoAAAANSUhEUg==";
const PNG: ImagePart = { mediaType: "image/png", data: PNG_DATA };
const SHOT_URL = "https://example.com/shot.png";
const URL_IMAGE: ImagePart = { url: SHOT_URL };

type OpenAiBody = { model: string; messages: { role: string; content: unknown }[] };
type AnthropicBody = { messages: { role: string; content: Record<string, unknown>[] }[] };

interface World {
  exec: FakeLlm;
  vis: FakeLlm;
  /** Rewrites the configuration; `extra` lands in the `exec` provider table. */
  configure(opts: { extra?: string; visionModel?: string }): Promise<void>;
  /** `images`: the session starts with `--image` (fails at start-up without a usable model). */
  open(flags: { model?: string; resume?: string; images?: boolean }): Promise<TestAgent>;
  close(): Promise<void>;
}

/**
 * `exec` (openai kind) lists `seer-model`, declared image-capable, and `text-model`; `text`
 * (anthropic kind, same fake `vis`) is text-only; `vis/see-model` is a vision model.
 */
async function world(scripts: { exec: FakeScript; vis: FakeScript }): Promise<World> {
  const exec = await startFakeLlm({ script: scripts.exec });
  const vis = await startFakeLlm({ script: scripts.vis, format: "anthropic" });
  const home = await Deno.makeTempDir({ prefix: "reasonix-textonly-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "reasonix-textonly-cwd-" });
  const configure: World["configure"] = async ({ extra, visionModel }) => {
    await Deno.writeTextFile(
      join(home, "config.toml"),
      `default_model = "exec/seer-model"
${visionModel === undefined ? "" : `[agent]\nvision_model = "${visionModel}"\n`}
[[providers]]
name = "exec"
kind = "openai"
base_url = "${exec.url}"
models = ["text-model", "seer-model"]
${extra ?? 'vision_models = ["seer-model"]'}
api_key_env = "EXEC_KEY"
context_window = 128000

[[providers]]
name = "text"
kind = "anthropic"
base_url = "${vis.url}"
models = ["plain-model"]
api_key_env = "VIS_KEY"
context_window = 128000

[[providers]]
name = "vis"
kind = "anthropic"
base_url = "${vis.url}"
models = ["see-model"]
images = true
api_key_env = "VIS_KEY"
context_window = 128000
`,
    );
  };
  await configure({});
  return {
    exec,
    vis,
    configure,
    open: ({ model, resume, images }) =>
      openTestAgent({
        cwd,
        env: { REASONIX_HOME: home, EXEC_KEY: "sk-exec", VIS_KEY: "sk-vis" },
        flags: { images, ...(model ? { model } : {}), ...(resume ? { resume } : {}) },
      }),
    close: async () => {
      await exec.close();
      await vis.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(cwd, { recursive: true });
    },
  };
}

async function turn(runtime: TestAgent, text: string, images?: ImagePart[]): Promise<void> {
  const input = images ? { text, images } : { text };
  let status: string | undefined;
  for await (const event of runtime.agent.run(input, { signal: AbortSignal.timeout(20_000) })) {
    if (event.type === "done") status = event.status;
  }
  assert.equal(status, "completed");
}

/** Any image part of any wire format in a body. */
function hasImagePart(req: RecordedRequest): boolean {
  return /"type":"(?:image_url|image|input_image)"/.test(req.bodyText) ||
    req.bodyText.includes(PNG_DATA) || req.bodyText.includes(SHOT_URL);
}

const STAND_IN = `what is this?\n\n${imagePlaceholder(1)}\n\n${imagePlaceholder(2)}`;

/** Opens a session on the image-capable model and sends one turn with two images. */
async function imageSession(w: World): Promise<string> {
  const first = await w.open({ images: true });
  try {
    await turn(first, "what is this?", [PNG, URL_IMAGE]);
    assert.ok(hasImagePart(w.exec.requests[0]), "the image-capable model sees the images");
    return first.agent.session.id;
  } finally {
    await first.dispose();
  }
}

Deno.test("resumed under a text-only model, stored images become fixed placeholder text", async () => {
  const w = await world({
    exec: [{ text: "A pixel." }, { text: "Yes." }, { text: "Still." }],
    vis: [],
  });
  try {
    const id = await imageSession(w);
    const resumed = await w.open({ model: "exec/text-model", resume: id });
    try {
      await turn(resumed, "anything else?");
      await turn(resumed, "and now?");
    } finally {
      await resumed.dispose();
    }
    const [, second, third] = w.exec.requests;
    for (const req of [second, third]) {
      assert.equal((req.body as OpenAiBody).model, "text-model");
      assert.ok(!hasImagePart(req), req.bodyText);
      const user = (req.body as OpenAiBody).messages[1];
      assert.equal(typeof user.content, "string");
      assert.ok((user.content as string).endsWith(STAND_IN), String(user.content));
    }
    // Stable bytes: the next request extends this one (all but its closing `]}`).
    assert.equal(third.sharedPrefixBytes, second.bodyText.length - 2);
  } finally {
    await w.close();
  }
});

Deno.test("images = false on resume, or a switch to a text-only kind, sends no image part", async () => {
  const w = await world({
    exec: [{ text: "A pixel." }, { text: "Hidden now." }],
    vis: [{ text: "No images here." }],
  });
  try {
    const id = await imageSession(w);
    // The endpoint is now declared text-only for this model.
    await w.configure({ extra: "images = false" });
    const resumed = await w.open({ model: "exec/seer-model", resume: id });
    try {
      await turn(resumed, "again?");
    } finally {
      await resumed.dispose();
    }
    assert.ok(!hasImagePart(w.exec.requests[1]), w.exec.requests[1].bodyText);
    assert.ok(
      w.exec.requests[1].bodyText.includes(JSON.stringify(imagePlaceholder(2)).slice(1, -1)),
    );

    // `/model` to a text-only model of another kind (Anthropic blocks) on the same session.
    const switched = await w.open({ model: "text/plain-model", resume: id });
    try {
      await turn(switched, "your turn");
    } finally {
      await switched.dispose();
    }
    const [anthropic] = w.vis.requests;
    assert.ok(!hasImagePart(anthropic), anthropic.bodyText);
    const user = (anthropic.body as AnthropicBody).messages[0].content;
    assert.deepEqual(user.map((b) => b.type), ["text"]);
    assert.ok(String(user[0].text).endsWith(STAND_IN));
  } finally {
    await w.close();
  }
});

Deno.test("a stored description stays byte for byte when vision_model changes", async () => {
  const w = await world({
    exec: [{ text: "Described." }, { text: "Same." }],
    vis: [{ text: "One grey pixel." }],
  });
  try {
    await w.configure({ visionModel: "vis/see-model" });
    const first = await w.open({ model: "exec/text-model", images: true });
    let id: string;
    try {
      await turn(first, "what is this?", [PNG]);
      id = first.agent.session.id;
    } finally {
      await first.dispose();
    }
    assert.equal(w.vis.requests.length, 1);
    // Another vision model now: the stored turn is replayed, nothing is described again.
    await w.configure({ visionModel: "auto" });
    const resumed = await w.open({ model: "exec/text-model", resume: id });
    try {
      await turn(resumed, "and?");
    } finally {
      await resumed.dispose();
    }
    assert.equal(w.vis.requests.length, 1);
    const [a, b] = w.exec.requests;
    assert.ok(!hasImagePart(a) && !hasImagePart(b));
    assert.equal(
      JSON.stringify((b.body as OpenAiBody).messages[1]),
      JSON.stringify((a.body as OpenAiBody).messages[1]),
    );
    assert.match(String((a.body as OpenAiBody).messages[1].content), /One grey pixel\./);
  } finally {
    await w.close();
  }
});
