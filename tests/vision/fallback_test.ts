/**
 * The image fallback of spec §3.5, through the real runtime against fake LLM servers: direct
 * images, `auto`, an explicit cross-provider vision model, failures, and no fallback at all.
 * The executor and the vision model are separate fake servers (one per provider).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { openTestAgent, type TestAgent as Runtime } from "../support/host_agent.ts";

type RuntimeFlags = NonNullable<Parameters<typeof openTestAgent>[0]["flags"]>;
import type { AgentEvent } from "../../core/agent/events.ts";
import { ConfigError } from "../../core/config/errors.ts";
import { readTranscript } from "../../core/store/transcript.ts";
import type { ImagePart } from "../../providers/types.ts";
import { type FakeLlm, type FakeScript, startFakeLlm } from "../fake_llm/mod.ts";
import type { RecordedRequest } from "../fake_llm/mod.ts";

const PNG_DATA = "iVBORw0KGgoAAAANSUhEUg==";
const PNG: ImagePart = { mediaType: "image/png", data: PNG_DATA };
const DESCRIPTION = 'A terminal showing "TypeError: x is undefined" at app.js:12.';

interface World {
  exec: FakeLlm;
  vis: FakeLlm;
  home: string;
  cwd: string;
  build(flags?: RuntimeFlags): Promise<Runtime>;
  close(): Promise<void>;
}

/**
 * `exec` (openai kind) lists a text model and a declared vision model; `vis` (anthropic kind)
 * is another vendor whose models all take images.
 */
async function world(
  visionModel: string | undefined,
  scripts: { exec?: FakeScript; vis?: FakeScript },
): Promise<World> {
  const exec = await startFakeLlm({ script: scripts.exec ?? [] });
  const vis = await startFakeLlm({ script: scripts.vis ?? [] });
  const home = await Deno.makeTempDir({ prefix: "reasonix-vision-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "reasonix-vision-cwd-" });
  await Deno.writeTextFile(
    join(home, "config.toml"),
    `default_model = "exec/text-model"
${visionModel === undefined ? "" : `[agent]\nvision_model = "${visionModel}"\n`}
[[providers]]
name = "exec"
kind = "openai"
base_url = "${exec.url}"
models = ["text-model", "seer-model"]
vision_models = ["seer-model"]
api_key_env = "EXEC_KEY"
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
  return {
    exec,
    vis,
    home,
    cwd,
    build: (flags = {}) =>
      openTestAgent({
        cwd,
        env: { REASONIX_HOME: home, EXEC_KEY: "sk-exec", VIS_KEY: "sk-vis" },
        flags,
      }),
    close: async () => {
      await exec.close();
      await vis.close();
      await Deno.remove(home, { recursive: true });
      await Deno.remove(cwd, { recursive: true });
    },
  };
}

/** Runs one turn; returns the events, notices included, in order. */
async function turn(runtime: Runtime, text: string, images?: ImagePart[]): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  const input = images ? { text, images } : { text };
  for await (const event of runtime.agent.run(input, { signal: AbortSignal.timeout(20_000) })) {
    events.push(event);
  }
  return events;
}

function done(events: AgentEvent[]): Extract<AgentEvent, { type: "done" }> {
  const last = events.at(-1);
  assert.equal(last?.type, "done");
  return last as Extract<AgentEvent, { type: "done" }>;
}

function notices(events: AgentEvent[]): string[] {
  return events.flatMap((e) => e.type === "notice" ? [`${e.level}: ${e.message}`] : []);
}

type OpenAiBody = { model: string; messages: { role: string; content: unknown }[] };
type AnthropicBody = {
  model: string;
  system: { text: string }[];
  messages: { role: string; content: Record<string, unknown>[] }[];
};

/** The last user message of a Chat Completions request. */
function lastUser(req: RecordedRequest): { role: string; content: unknown } {
  return (req.body as OpenAiBody).messages.findLast((m) => m.role === "user")!;
}

Deno.test("an image-capable executor gets the image itself and no description is asked for", async () => {
  const w = await world("auto", { exec: [{ text: "It is an error screenshot." }] });
  try {
    const runtime = await w.build({ model: "exec/seer-model", images: true });
    assert.equal(runtime.agent.model.vision.plan.mode, "direct");
    const events = await turn(runtime, "what does this show?", [PNG]);
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    assert.deepEqual(notices(events), []);
    assert.equal(w.exec.requests.length, 1);
    assert.equal(w.vis.requests.length, 0);
    const content = lastUser(w.exec.requests[0]).content as Record<string, unknown>[];
    assert.ok(Array.isArray(content));
    assert.deepEqual(content.at(-1), {
      type: "image_url",
      image_url: { url: `data:image/png;base64,${PNG_DATA}` },
    });
    assert.match(String(content[0].text), /what does this show\?/);
    // The image is part of the stored turn, so a resumed session shows it again.
    const stored = (await readTranscript(runtime.sessionPath))!.messages[0];
    assert.deepEqual(stored.images, [PNG]);
  } finally {
    await w.close();
  }
});

Deno.test("auto describes the image with the executor provider's vision model", async () => {
  const w = await world("auto", {
    exec: (req) =>
      (req.body as OpenAiBody).model === "seer-model"
        ? { text: DESCRIPTION }
        : { text: "The error is on line 12." },
  });
  try {
    const runtime = await w.build({ images: true });
    const events = await turn(runtime, "why does it fail?", [PNG]);
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    assert.equal(w.vis.requests.length, 0, "auto stays within the executor's provider");
    assert.deepEqual(
      w.exec.requests.map((r) => (r.body as OpenAiBody).model),
      ["seer-model", "text-model"],
    );
    const [vision, executor] = w.exec.requests;
    // The vision request carries the image and the user's words.
    const asked = lastUser(vision).content as Record<string, unknown>[];
    assert.deepEqual(asked.map((p) => p.type), ["text", "image_url"]);
    assert.match(String(asked[0].text), /why does it fail\?/);
    assert.equal(vision.headers.authorization, "Bearer sk-exec");
    // The executor sees the description block and no image.
    const content = lastUser(executor).content;
    assert.equal(typeof content, "string");
    assert.ok(
      (content as string).endsWith(
        '<image-description version="1" model="exec/seer-model" index="1">\n' +
          `${DESCRIPTION}\n</image-description>`,
      ),
      String(content),
    );
    assert.ok(!executor.bodyText.includes(PNG_DATA));
    assert.deepEqual(notices(events).map((n) => n.replace(/ \(.*\)$/, "")), [
      "info: image 1 described by exec/seer-model",
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("an explicit vision model on another provider describes with its own endpoint and key", async () => {
  const w = await world("vis/see-model", {
    vis: [{ text: DESCRIPTION }, { text: "A second picture: a green check mark." }],
    exec: [{ text: "Both seen." }, { text: "Still fine." }],
  });
  try {
    const url: ImagePart = { url: "https://example.com/check.png" };
    const runtime = await w.build({ images: true });
    assert.equal(runtime.agent.model.vision.plan.mode, "describe");
    const events = await turn(runtime, "compare these", [PNG, url]);
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    assert.equal(w.vis.requests.length, 2);
    const bodies = w.vis.requests.map((r) => r.body as AnthropicBody);
    assert.ok(w.vis.requests.every((r) => r.path === "/v1/messages"));
    assert.ok(w.vis.requests.every((r) => r.headers["x-api-key"] === "sk-vis"));
    assert.ok(bodies.every((b) => b.model === "see-model"));
    assert.match(bodies[0].system[0].text, /Transcribe all visible text verbatim/);
    assert.deepEqual(bodies[0].messages[0].content[0], {
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG_DATA },
    });
    assert.deepEqual(bodies[1].messages[0].content[0], {
      type: "image",
      source: { type: "url", url: "https://example.com/check.png" },
    });
    assert.match(String(bodies[1].messages[0].content[1].text), /\(2 of 2\)/);

    assert.equal(w.exec.requests.length, 1);
    const content = lastUser(w.exec.requests[0]).content as string;
    assert.match(content, /^<environment>[\s\S]*compare these\n\n<image-description version="1"/);
    assert.ok(content.includes(`model="vis/see-model" index="1">\n${DESCRIPTION}\n`));
    assert.ok(
      content.endsWith(
        '<image-description version="1" model="vis/see-model" index="2">\n' +
          "A second picture: a green check mark.\n</image-description>",
      ),
    );

    // Resuming replays the stored description byte for byte and describes nothing again.
    const resumed = await w.build({ resume: "latest" });
    const again = await turn(resumed, "and now?");
    await resumed.dispose();
    assert.equal(done(again).status, "completed");
    assert.equal(w.vis.requests.length, 2);
    const [first, second] = w.exec.requests;
    const firstUser = JSON.stringify((first.body as OpenAiBody).messages[1]);
    assert.equal(JSON.stringify((second.body as OpenAiBody).messages[1]), firstUser);
    // The resumed request is a byte-extension of the first: all but its closing `]}`.
    assert.equal(second.sharedPrefixBytes, first.bodyText.length - 2);
  } finally {
    await w.close();
  }
});

Deno.test("a failed or empty description becomes a notice, never a made-up description", async () => {
  const w = await world("vis/see-model", {
    vis: [
      {
        status: 400,
        body: {
          type: "error",
          error: { type: "invalid_request_error", message: "image too small" },
        },
      },
      { text: "   " },
    ],
    exec: [{ text: "I cannot see the images." }],
  });
  try {
    const runtime = await w.build({ images: true });
    const events = await turn(runtime, "what are these?", [PNG, PNG]);
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    const said = notices(events);
    assert.equal(said.length, 2);
    assert.match(
      said[0],
      /^warning: image 1 could not be described by vis\/see-model: .*image too small/,
    );
    assert.match(
      said[1],
      /^warning: image 2 could not be described by vis\/see-model: .*empty description/,
    );
    assert.ok(said.every((n) => n.endsWith("The turn continues without its description.")));
    // The turn went ahead; the model is told the images are unknown, not shown a description.
    assert.equal(w.exec.requests.length, 1);
    const content = lastUser(w.exec.requests[0]).content as string;
    assert.ok(!content.includes("<image-description"));
    assert.equal(content.match(/<image-unavailable version="1" index="\d">/g)?.length, 2);
    assert.match(content, /its content is unknown/);
  } finally {
    await w.close();
  }
});

Deno.test("without a vision model, images for a text-only model fail at startup", async () => {
  const w = await world(undefined, {});
  try {
    await assert.rejects(
      () => w.build({ images: true }),
      (e: unknown) =>
        e instanceof ConfigError && e.problem === "model exec/text-model cannot read images" &&
        /agent\.vision_model = "auto"/.test(e.message),
    );
    assert.equal(w.exec.requests.length + w.vis.requests.length, 0);
  } finally {
    await w.close();
  }
});

Deno.test("images that reach a runtime without a fallback are dropped with a warning", async () => {
  const w = await world("", { exec: [{ text: "No image here." }] });
  try {
    const runtime = await w.build();
    assert.equal(runtime.agent.model.vision.plan.mode, "none");
    assert.throws(() => runtime.agent.model.vision.check([PNG]), ConfigError);
    const events = await turn(runtime, "look", [PNG]);
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    assert.deepEqual(notices(events).map((n) => n.split(":")[0]), ["warning"]);
    const content = lastUser(w.exec.requests[0]).content as string;
    assert.match(
      content,
      /<image-unavailable version="1" index="1">\nmodel exec\/text-model cannot read images; it was not sent\.\n<\/image-unavailable>$/,
    );
  } finally {
    await w.close();
  }
});

Deno.test("auto on a provider without a vision model fails only runs that bring images", async () => {
  const w = await world("auto", { exec: [{ text: "Plain answer." }] });
  try {
    // Without its declared vision model, `exec` has no image-capable model.
    const file = join(w.home, "config.toml");
    await Deno.writeTextFile(
      file,
      (await Deno.readTextFile(file)).replace('vision_models = ["seer-model"]', ""),
    );
    const runtime = await w.build();
    const events = await turn(runtime, "hello");
    await runtime.dispose();
    assert.equal(done(events).status, "completed");
    await assert.rejects(
      () => w.build({ images: true }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /"auto" found no image-capable model in provider "exec"/.test(e.problem),
    );
  } finally {
    await w.close();
  }
});

Deno.test("an unusable explicit vision_model is a startup error even without images", async () => {
  const w = await world("exec/text-model", {});
  try {
    await assert.rejects(
      () => w.build(),
      (e: unknown) => e instanceof ConfigError && /not known to accept images/.test(e.problem),
    );
  } finally {
    await w.close();
  }
});
