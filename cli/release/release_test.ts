import assert from "node:assert/strict";
import { join } from "node:path";
import { binaryName, entrySource, ROOT, TARGETS } from "./compile.ts";
import {
  changelogSection,
  denoDir,
  denortProblem,
  denortSource,
  release,
  sha256File,
  writeChecksums,
} from "./release.ts";

/** A real HTTP server that has no base binaries: every request is a 404. */
function emptyDownloadHost(): { url: string; close(): Promise<void>; requests: string[] } {
  const requests: string[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (request) => {
    requests.push(new URL(request.url).pathname);
    return new Response("not found", { status: 404 });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/release`,
    close: () => server.shutdown(),
    requests,
  };
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

const CHANGELOG = `# Changelog

## [Unreleased]

### Added

- next thing

## [1.2.0] - 2026-11-30

### Fixed

- a bug

## [1.1.0]

- older

[1.2.0]: https://example.com/1.2.0
`;

Deno.test("the release builds the six targets: x64 and arm64 of linux, darwin and windows", () => {
  assert.deepEqual(Object.values(TARGETS).sort(), [
    "aarch64-apple-darwin",
    "aarch64-pc-windows-msvc",
    "aarch64-unknown-linux-gnu",
    "x86_64-apple-darwin",
    "x86_64-pc-windows-msvc",
    "x86_64-unknown-linux-gnu",
  ]);
  assert.equal(binaryName("1.2.0", "windows-arm64"), "reasonix-1.2.0-windows-arm64.exe");
  assert.equal(binaryName("1.2.0", "darwin-x64"), "reasonix-1.2.0-darwin-x64");
});

Deno.test("the injected version, commit and target are what --version --json prints", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const entry = join(dir, "entry.ts");
    const source = entrySource("9.9.9-test", {
      commit: "0123456789abcdef0123456789abcdef01234567",
      target: TARGETS["darwin-arm64"],
    }).replaceAll("../cli/", `${join(ROOT, "cli")}/`);
    await Deno.writeTextFile(entry, source);
    const run = async (...args: string[]) => {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "--no-lock", "--allow-read", "--allow-env", entry, ...args],
        stdout: "piped",
        stderr: "piped",
      }).output();
      return new TextDecoder().decode(out.stdout).trim();
    };
    const report = JSON.parse(await run("--version", "--json"));
    assert.equal(report.version, "9.9.9-test");
    assert.equal(report.commit, "0123456789abcdef0123456789abcdef01234567");
    assert.equal(report.target, "aarch64-apple-darwin");
    assert.equal(report.deno, Deno.version.deno);
    assert.equal(report.v8, Deno.version.v8);
    assert.equal(await run("--version"), "reasonix 9.9.9-test");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SHA256SUMS holds one sha256sum line per file, sorted by name", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(dir, "reasonix-b"), "abc");
    await Deno.writeTextFile(join(dir, "reasonix-a"), "");
    const path = await writeChecksums(dir, [join(dir, "reasonix-b"), join(dir, "reasonix-a")]);
    assert.equal(
      await Deno.readTextFile(path),
      "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  reasonix-a\n" +
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  reasonix-b\n",
    );
    assert.equal(
      await sha256File(join(dir, "reasonix-b")),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
    // The system's checker agrees where it is installed.
    const check = await new Deno.Command("sha256sum", {
      args: ["--check", "SHA256SUMS"],
      cwd: dir,
      stdout: "null",
      stderr: "null",
    }).output().catch(() => undefined);
    if (check) assert.ok(check.success, "sha256sum --check rejects SHA256SUMS");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the release notes are the version's changelog section, or Unreleased past a tag", () => {
  assert.equal(
    changelogSection(CHANGELOG, "1.2.0"),
    "## [1.2.0] - 2026-11-30\n\n### Fixed\n\n- a bug\n",
  );
  assert.equal(changelogSection(CHANGELOG, "1.1.0"), "## [1.1.0]\n\n- older\n");
  for (const untagged of ["1.2.0-3-gabc1234", "1.2.0-dirty", "e9d67b6"]) {
    assert.match(
      changelogSection(CHANGELOG, untagged) ?? "",
      /^## \[Unreleased\]\n[^]*next thing\n$/,
    );
  }
  assert.equal(changelogSection(CHANGELOG, "2.0.0"), undefined);
});

Deno.test("the repository's CHANGELOG.md has the section a build of this checkout needs", async () => {
  const text = await Deno.readTextFile(join(ROOT, "CHANGELOG.md"));
  assert.ok(changelogSection(text, "0.1.0-1-gabcdef0"));
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  assert.ok(changelogSection(text, config.version), `no section for ${config.version}`);
});

Deno.test("a base binary is found in the Deno cache where deno compile keeps it", async () => {
  const dir = await Deno.makeTempDir();
  const host = emptyDownloadHost();
  try {
    const source = denortSource("linux-arm64", { denoDir: dir, baseUrl: host.url });
    assert.equal(
      source.cached,
      join(dir, "dl", "release", `v${Deno.version.deno}`, "denort-aarch64-unknown-linux-gnu.zip"),
    );
    assert.match(await denortProblem(source) ?? "", /HTTP 404/);
    await Deno.mkdir(join(source.cached, ".."), { recursive: true });
    await Deno.writeTextFile(source.cached, "zip");
    assert.equal(await denortProblem(source), undefined);
  } finally {
    await host.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without the base binaries the release says so and builds nothing", async () => {
  const dir = await Deno.makeTempDir();
  const host = emptyDownloadHost();
  try {
    const out = join(dir, "out");
    const deno = join(dir, "deno_dir");
    await Deno.mkdir(deno);
    // One target is cached: the others still stop the whole release.
    const cached = denortSource("linux-x64", { denoDir: deno }).cached;
    await Deno.mkdir(join(cached, ".."), { recursive: true });
    await Deno.writeTextFile(cached, "zip");
    const result = await release({
      out,
      version: "1.2.0",
      changelog: CHANGELOG,
      denoDir: deno,
      denortUrl: host.url,
      log: () => {},
    });
    assert.equal(result.ok, false);
    const problem = result.ok ? "" : result.problem;
    assert.match(problem, /base binary \(denort/);
    assert.match(problem, /Nothing was built/);
    for (const name of Object.keys(TARGETS).filter((n) => n !== "linux-x64")) {
      assert.ok(problem.includes(`  ${name}: `), `${name} is not named`);
    }
    assert.ok(!problem.includes("  linux-x64: "));
    assert.equal(host.requests.length, 5);
    assert.equal(await exists(out), false, "the release made its output directory");

    // The script itself: exit 1, the reason on stderr, nothing on disk.
    const run = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-read",
        "--allow-write",
        "--allow-env",
        "--allow-run",
        "--allow-net",
        join(ROOT, "cli/release/release.ts"),
        "--out",
        out,
        "--denort-url",
        host.url,
      ],
      env: { DENO_DIR: deno },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 1);
    assert.equal(new TextDecoder().decode(run.stdout), "");
    assert.match(
      new TextDecoder().decode(run.stderr),
      /deno task release: .*denort[^]*Nothing was built/,
    );
    assert.equal(await exists(out), false);
  } finally {
    await host.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a release whose build fails keeps nothing of it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "out");
    // The real Deno directory's caches, but a `dl` of its own holding a damaged base binary:
    // the check passes, deno compile then fails.
    const deno = join(dir, "deno_dir");
    await Deno.mkdir(deno);
    const real = await denoDir();
    for await (const entry of Deno.readDir(real)) {
      if (entry.name !== "dl") await Deno.symlink(join(real, entry.name), join(deno, entry.name));
    }
    const cached = denortSource("linux-x64", { denoDir: deno }).cached;
    await Deno.mkdir(join(cached, ".."), { recursive: true });
    await Deno.writeTextFile(cached, "not a zip archive");
    const result = await release({
      out,
      version: "1.2.0",
      changelog: CHANGELOG,
      denoDir: deno,
      names: ["linux-x64"],
      log: () => {},
    });
    assert.equal(result.ok, false);
    // The build used the damaged archive of the checked cache, not one of its own.
    assert.match(
      result.ok ? "" : result.problem,
      /deno compile failed for linux-x64 \(linux-x64: .*unpack archive.*\); nothing was kept/,
    );
    assert.deepEqual(await Array.fromAsync(Deno.readDir(out)), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a changelog without the version's section stops the release before any check", async () => {
  const host = emptyDownloadHost();
  try {
    const result = await release({
      out: "/nonexistent/out",
      version: "3.0.0",
      changelog: "# Changelog\n\n## [1.0.0]\n\n- first\n",
      denoDir: "/nonexistent",
      denortUrl: host.url,
      log: () => {},
    });
    assert.equal(result.ok, false);
    assert.match(result.ok ? "" : result.problem, /no section for 3\.0\.0.*Nothing was built/);
    assert.equal(host.requests.length, 0);
  } finally {
    await host.close();
  }
});
