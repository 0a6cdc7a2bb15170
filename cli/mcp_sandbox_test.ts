import assert from "node:assert/strict";
import { join } from "node:path";
import { McpLaunchRefusedError } from "../plugins/mcp/failure.ts";
import type { StdioServerSpec } from "../plugins/mcp/types.ts";
import { mcpSandboxLauncher } from "./mcp_sandbox.ts";

function spec(kind: "user" | "project", extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return {
    name: "s",
    transport: "stdio",
    command: "true",
    args: ["--flag", "it's"],
    env: {},
    concurrency: "parallel",
    startupTimeoutMs: 1000,
    source: { kind, file: kind === "user" ? "/home/u/.reasonix/config.toml" : "/ws/reasonix.toml" },
    ...extra,
  };
}

async function launcher(
  opts: { which?: (n: string) => Promise<string | undefined>; os?: typeof Deno.build.os } = {},
) {
  const ws = await Deno.realPath(await Deno.makeTempDir());
  const home = await Deno.realPath(await Deno.makeTempDir());
  return {
    ws,
    home,
    launch: mcpSandboxLauncher({
      home,
      workspaceRoot: ws,
      forbidRead: [],
      readOnly: false,
      env: { PATH: Deno.env.get("PATH") },
      ...opts,
    }),
    cleanup: async () => {
      await Deno.remove(ws, { recursive: true });
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test(
  "a stdio server runs in bubblewrap with the Reasonix home hidden and the workspace writable",
  {
    ignore: Deno.build.os !== "linux",
  },
  async () => {
    const real = await launcher();
    try {
      const out = await real.launch(spec("project"));
      assert.match(out.command, /bwrap$/);
      const args = out.args.join(" ");
      assert.match(args, /--unshare-pid/);
      assert.ok(out.args.includes("--bind") && out.args.includes(real.ws), args);
      assert.match(args, new RegExp(`--tmpfs ${real.home}`));
      assert.doesNotMatch(args, /--unshare-net/);
      assert.match(out.args.at(-1)!, /^exec '\/.*\/true' '--flag' 'it'\\''s'$/);
    } finally {
      await real.cleanup();
    }
  },
);

Deno.test("without bubblewrap a sandboxed server is refused, naming the fix; opt-outs and other systems run it as declared", async () => {
  const l = await launcher({ which: () => Promise.resolve(undefined), os: "linux" });
  try {
    await assert.rejects(() => l.launch(spec("project")), /install bubblewrap.*not started/is);
    await assert.rejects(
      () => l.launch(spec("user")),
      /add sandbox = false to its declaration in \/home\/u\/\.reasonix\/config\.toml/,
    );
    assert.deepEqual(await l.launch(spec("user", { sandbox: false })), {
      command: "true",
      args: ["--flag", "it's"],
    });
    // A project declaration cannot opt out.
    await assert.rejects(
      () => l.launch(spec("project", { sandbox: false })),
      McpLaunchRefusedError,
    );
  } finally {
    await l.cleanup();
  }
  const mac = await launcher({ which: () => Promise.resolve(undefined), os: "darwin" });
  try {
    assert.equal((await mac.launch(spec("project"))).command, "true");
  } finally {
    await mac.cleanup();
  }
});

Deno.test("a sandboxed server whose program does not exist fails as ENOENT", {
  ignore: Deno.build.os !== "linux",
}, async () => {
  const l = await launcher();
  try {
    await assert.rejects(
      () => l.launch(spec("user", { command: "/no/such/program" })),
      (e: unknown) => (e as { code?: string }).code === "ENOENT",
    );
    await assert.rejects(
      () => l.launch(spec("user", { command: "no-such-program-here" })),
      (e: unknown) => (e as { code?: string }).code === "ENOENT",
    );
  } finally {
    await l.cleanup();
  }
});

Deno.test(
  "a sandboxed server whose files live under /tmp still sees them; /tmp itself stays private",
  { ignore: Deno.build.os !== "linux" || !(await hasBwrap()) },
  async () => {
    const real = await launcher();
    const dir = await Deno.realPath(await Deno.makeTempDir({ dir: "/tmp" }));
    const stray = await Deno.makeTempFile({ dir: "/tmp", prefix: "reasonix-stray-" });
    try {
      await Deno.writeTextFile(
        join(dir, "server.sh"),
        `cat '${join(dir, "data.txt")}'; test -e ${stray} && echo LEAK; exit 0\n`,
      );
      await Deno.writeTextFile(join(dir, "data.txt"), "visible\n");
      const out = await real.launch({
        ...spec("project"),
        command: "/bin/sh",
        // Named inside a script, as `sh -c '…'` declarations do.
        args: ["-c", `. '${join(dir, "server.sh")}'`],
      });
      const ran = await new Deno.Command(out.command, {
        args: out.args,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(ran.stdout);
      assert.match(text, /^visible$/m, new TextDecoder().decode(ran.stderr));
      assert.doesNotMatch(text, /LEAK/);
    } finally {
      await real.cleanup();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(stray);
    }
  },
);

async function hasBwrap(): Promise<boolean> {
  return await new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
    .output().then((o) => o.success, () => false);
}
