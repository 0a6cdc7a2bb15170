import assert from "node:assert/strict";
import { sshdMissing, startSshd } from "./sshd.ts";
import { openOnFixture } from "./support.ts";

const missing = await sshdMissing();
if (missing) console.warn(`SKIPPED remote tests: ${missing}`);

Deno.test({
  name: "a remote workspace reads, writes, lists and runs on the remote host",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const ws = remote.workspace;
    assert.equal(remote.root, sshd.remoteRoot);
    const file = `${remote.root}/a.txt`;
    await ws.writeFile(file, new TextEncoder().encode("hello\n"), { mode: 0o640 });
    assert.equal(new TextDecoder().decode(await ws.readFile(file)), "hello\n");
    assert.equal(await Deno.readTextFile(file), "hello\n");
    assert.equal((await ws.stat(file)).mode! & 0o777, 0o640);
    const names = [];
    for await (const e of ws.readDir(remote.root)) names.push(e.name);
    assert.deepEqual(names, ["a.txt"]);
    await assert.rejects(
      ws.stat(`${remote.root}/nope`),
      (e: Error & { code?: string }) => e.code === "ENOENT",
    );
    await assert.rejects(
      ws.writeFile(file, new Uint8Array(), { createNew: true }),
      (e: Error & { code?: string }) => e.code === "EEXIST",
    );
    await assert.rejects(
      ws.readFile(remote.root),
      (e: Error & { code?: string }) => e.code === "EISDIR",
    );
    await ws.mkdir(`${remote.root}/d/e`, { recursive: true });
    await assert.rejects(
      ws.mkdir(`${remote.root}/d`),
      (e: Error & { code?: string }) => e.code === "EEXIST",
    );
    await assert.rejects(
      ws.remove(`${remote.root}/d`),
      (e: Error & { code?: string }) => e.code === "ENOTEMPTY",
    );
    await ws.symlink("a.txt", `${remote.root}/link`);
    assert.equal(await ws.readLink(`${remote.root}/link`), "a.txt");
    assert.equal(await ws.realPath(`${remote.root}/link`), file);
    assert.ok((await ws.lstat(`${remote.root}/link`)).isSymlink);
    await ws.writeFile(`${remote.root}/b.txt`, new TextEncoder().encode("b"));
    await ws.rename(`${remote.root}/b.txt`, file);
    assert.equal(await Deno.readTextFile(file), "b");
    const p = await ws.spawn(["sh", "-c", "echo out; echo err >&2; exit 3"], { cwd: remote.root });
    const [out, err, status] = await Promise.all([
      new Response(p.stdout).text(),
      new Response(p.stderr).text(),
      p.status,
    ]);
    assert.equal(out, "out\n");
    assert.equal(err, "err\n");
    assert.equal(status.code, 3);
    await assert.rejects(
      ws.spawn(["no-such-program-x"], { cwd: remote.root }),
      (e: Error & { code?: string }) => e.code === "ENOENT",
    );
    await assert.rejects(
      ws.spawn(["true"], { cwd: "/no/such/dir" }),
      (e: Error & { code?: string }) => e.code === "ENOENT",
    );
    const env = await ws.spawn(["sh", "-c", 'echo "$FOO:$HOME"'], {
      cwd: remote.root,
      clearEnv: true,
      env: { FOO: "it's" },
    });
    assert.equal(await new Response(env.stdout).text(), "it's:\n");
    assert.ok(remote.probe.programs.bash);
    // Nothing tells bash an sshd started it (it would source ~/.bashrc): no SSH_CLIENT, and
    // stdin is not the channel's socket.
    const quiet = await ws.spawn(
      ["sh", "-c", 'echo "${SSH_CLIENT-unset} $([ -S /dev/stdin ] && echo socket || echo plain)"'],
      { cwd: remote.root },
    );
    assert.equal(await new Response(quiet.stdout).text(), "unset plain\n");
  },
});

type Coded = Error & { code?: string };

Deno.test({
  name:
    "an unknown host key goes to the callback with its fingerprint; accepted, it is added to known_hosts",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    const knownHosts = `${sshd.dir}/fresh_known_hosts`;
    const expected = new TextDecoder().decode(
      (await new Deno.Command("ssh-keygen", {
        args: ["-lf", `${sshd.dir}/host_ed25519.pub`],
        stdout: "piped",
      }).output()).stdout,
    ).split(" ")[1];
    const asked: string[] = [];
    await assert.rejects(
      openOnFixture(sshd, {
        knownHostsFiles: [knownHosts],
        confirmHostKey: (key) => {
          asked.push(`${key.host} ${key.keyType} ${key.fingerprint}`);
          return Promise.resolve(false);
        },
      }),
      (e: Coded) => e.code === "remote_host_key_unknown",
    );
    assert.deepEqual(asked, [`[127.0.0.1]:${sshd.port} ssh-ed25519 ${expected}`]);
    await assert.rejects(Deno.stat(knownHosts));
    await using remote = await openOnFixture(sshd, {
      knownHostsFiles: [knownHosts],
      confirmHostKey: () => Promise.resolve(true),
    });
    assert.equal(await Deno.readTextFile(knownHosts), `[127.0.0.1]:${sshd.port} ${sshd.hostKey}\n`);
    // Known now: no question the next time.
    await using again = await openOnFixture(sshd, {
      knownHostsFiles: [knownHosts],
      confirmHostKey: () => Promise.reject(new Error("must not ask")),
    });
    assert.equal(again.root, remote.root);
  },
});

Deno.test({
  name: "a hashed known_hosts entry is honoured",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    const hashed = `${sshd.dir}/hashed_known_hosts`;
    await Deno.copyFile(sshd.knownHosts, hashed);
    const out = await new Deno.Command("ssh-keygen", {
      args: ["-H", "-f", hashed],
      stderr: "null",
      stdout: "null",
    }).output();
    assert.ok(out.success);
    assert.match(await Deno.readTextFile(hashed), /^\|1\|/);
    await using remote = await openOnFixture(sshd, { knownHostsFiles: [hashed] });
    assert.equal(remote.root, sshd.remoteRoot);
  },
});

Deno.test({
  name:
    "a key with a passphrase logs in through the passphrase callback; a wrong one is an auth error",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    const key = `${sshd.dir}/id_locked`;
    await new Deno.Command("ssh-keygen", {
      args: ["-q", "-t", "ed25519", "-N", "open sesame", "-f", key],
    }).output();
    await Deno.writeTextFile(`${sshd.dir}/authorized_keys`, await Deno.readTextFile(`${key}.pub`));
    const asked: string[] = [];
    await using remote = await openOnFixture(sshd, {
      identityFiles: [key],
      passphrase: (file) => {
        asked.push(file);
        return Promise.resolve("open sesame");
      },
    });
    assert.deepEqual(asked, [key]);
    assert.equal(remote.root, sshd.remoteRoot);
    // A reconnect reuses the unlocked key: no second question.
    for (const pid of await sshd.sessionPids()) Deno.kill(pid, "SIGKILL");
    await new Promise((r) => setTimeout(r, 300));
    assert.ok((await remote.workspace.stat(remote.root)).isDirectory);
    assert.deepEqual(asked, [key]);
    await assert.rejects(
      openOnFixture(sshd, { identityFiles: [key], passphrase: () => Promise.resolve("wrong") }),
      (e: Coded) => e.code === "remote_auth_failed" && /wrong passphrase/.test(e.message),
    );
  },
});

Deno.test({
  name: "clear errors: refused login, unreachable host, missing remote path",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    await Deno.writeTextFile(`${sshd.dir}/authorized_keys`, "");
    await assert.rejects(
      openOnFixture(sshd),
      (e: Coded) => e.code === "remote_auth_failed" && /refused every key offered/.test(e.message),
    );
    await Deno.copyFile(`${sshd.identity}.pub`, `${sshd.dir}/authorized_keys`);
    await assert.rejects(
      openOnFixture(sshd, {
        target: { user: sshd.user, host: "127.0.0.1", port: sshd.port, path: "/no/such/repo" },
      }),
      (e: Coded) =>
        e.code === "remote_path_missing" && /\/no\/such\/repo .* does not exist/.test(e.message),
    );
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (closed.addr as Deno.NetAddr).port;
    closed.close();
    await assert.rejects(
      openOnFixture(sshd, { target: { user: sshd.user, host: "127.0.0.1", port, path: "/" } }),
      (e: Coded) => e.code === "remote_unreachable" && e.message.includes(`127.0.0.1:${port}`),
    );
  },
});

Deno.test({
  name: "the start-up probe reports OS, architecture, shell, tools and free space",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const p = remote.probe;
    assert.equal(p.os, "linux");
    assert.equal(p.arch, Deno.build.arch);
    assert.match(p.shell, /\/(ba|z|da)?sh$/);
    for (const program of ["bash", "git", "rg", "bwrap", "setsid"] as const) {
      assert.match(p.programs[program] ?? "", /^\//, program);
    }
    assert.ok(p.freeBytes !== null && p.freeBytes > 0);
    assert.equal(p.env.REASONIX_TEST_SSH_SESSION, "ssh");
  },
});

Deno.test({
  name: "ports forward local to remote and remote to local over the connection",
  ignore: missing !== undefined,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const { forwardLocal, forwardRemote } = await import("../../remote/mod.ts");
    // A "dev server" on the remote side, opened locally through a forward.
    const dev = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("dev page"),
    );
    await using there = forwardLocal(remote.workspace.connection, { remotePort: dev.addr.port });
    assert.notEqual(there.port, dev.addr.port);
    assert.equal(await (await fetch(`http://127.0.0.1:${there.port}/`)).text(), "dev page");
    // A local service reached from the remote host.
    const home = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      () => new Response("from local"),
    );
    await using back = await forwardRemote(remote.workspace.connection, {
      remotePort: 0,
      localPort: home.addr.port,
    });
    const curl = await remote.workspace.spawn([
      "bash",
      "-c",
      `exec 3<>/dev/tcp/127.0.0.1/${back.port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`,
    ], { cwd: remote.root });
    const body = await new Response(curl.stdout).text();
    await curl.status;
    assert.match(body, /from local/);
    await dev.shutdown();
    await home.shutdown();
  },
});

Deno.test({
  name:
    "grep and glob give the same answers on the remote host with rg and with the built-in fallback",
  ignore: missing !== undefined,
  async fn() {
    const { RemoteWorkspace } = await import("../../remote/mod.ts");
    const { createTestWorkspace, callTool } = await import("../../tools/builtin/test_context.ts");
    const { grepTool, globTool } = await import("../../tools/builtin/mod.ts");
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const answers: string[][] = [];
    for (const path of [remote.probe.env.PATH, "/nonexistent-bin"]) {
      // The same connection, with a login PATH that has rg or has nothing.
      const ws = new RemoteWorkspace(remote.workspace.connection, {
        os: "linux",
        env: { ...remote.probe.env, PATH: path },
      });
      const spawned: string[] = [];
      const spawn = ws.spawn.bind(ws);
      ws.spawn = (argv, opts) => {
        spawned.push(argv[0]);
        return spawn(argv, opts);
      };
      await using tw = await createTestWorkspace({ workspace: ws });
      await tw.write("src/a.ts", "const needle = 1;\n");
      await tw.write("src/b.ts", "nothing here\n");
      await tw.write("docs/c.md", "a needle too\n");
      const grep = await callTool(grepTool, { pattern: "needle", output_mode: "content" }, tw.ctx);
      const glob = await callTool(globTool, { pattern: "**/*.ts" }, tw.ctx);
      assert.ok(!grep.isError && !glob.isError, grep.content + glob.content);
      // glob lists newest first, and the two rounds write their files at different
      // times (SFTP mtimes have whole seconds), so only the set of paths must agree.
      answers.push([grep.content, glob.content.split("\n").sort().join("\n")]);
      // rg ran on the remote host when its PATH had it, nothing ran otherwise.
      assert.deepEqual(
        spawned,
        path === "/nonexistent-bin" ? [] : [remote.probe.programs.rg, remote.probe.programs.rg],
      );
    }
    assert.match(answers[0][0], /src\/a\.ts.*needle/s);
    assert.match(answers[0][0], /docs\/c\.md/);
    assert.match(answers[0][1], /src\/a\.ts/);
    assert.deepEqual(answers[1], answers[0]);
  },
});

Deno.test({
  name:
    "a remote process's status settles at its exit while a background child still holds its output",
  ignore: missing !== undefined,
  async fn() {
    await using sshd = await startSshd();
    await using remote = await openOnFixture(sshd);
    const p = await remote.workspace.spawn(["sh", "-c", "sleep 4.71 & echo started"], {
      cwd: remote.root,
    });
    const started = Date.now();
    const output = new Response(p.stdout).text();
    const status = await Promise.race([
      p.status,
      new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("the status never settled")), 10_000)
      ),
    ]);
    assert.equal(status.code, 0);
    assert.ok(Date.now() - started < 3000, `status took ${Date.now() - started} ms`);
    // The child is the group's: a group kill ends it and the output closes.
    p.kill("SIGKILL", { group: false });
    await new Deno.Command("pkill", { args: ["-f", "^sleep 4\\.71$"] }).output();
    assert.equal(await output, "started\n");
    await new Response(p.stderr).text();
  },
});
