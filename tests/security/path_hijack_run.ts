/**
 * One PATH-hijack attack, run in its own process so that its `PATH` and working directory are
 * the process's own, exactly as when a user starts Reasonix in a project with
 * `node_modules/.bin` on `PATH` (changing them in the test process would reach every other
 * test running beside it). Started by `sandbox_attack_test.ts` as
 * `deno run -A path_hijack_run.ts <variant>`; prints one JSON line: what each command
 * returned and which planted programs ran.
 *
 * The workspace's first command plants stand-ins for `setsid`, `bash`, `bwrap` and `rg` in the
 * directory the variant puts first on `PATH`; each leaves a canary outside the workspace when
 * it runs unconfined, or inside it when it runs in the sandbox. The second command, and a
 * `grep` call (which runs ripgrep unsandboxed), must run none of them.
 *
 * @module
 */
import { join } from "node:path";
import { makeLab } from "./lab.ts";

/** The programs planted. */
export const PLANTED = ["setsid", "bash", "bwrap", "rg"];

/** Where each variant puts the planted directory on `PATH` (the process runs in the workspace). */
export const VARIANTS: Record<string, (lab: { ws: string; outside: string }) => Promise<string>> = {
  "relative node_modules/.bin": () => Promise.resolve("node_modules/.bin"),
  "empty entry (the current directory)": () => Promise.resolve(""),
  "absolute entry inside the workspace": (l) => Promise.resolve(join(l.ws, "bin")),
  "absolute entry outside that links into the workspace": async (l) => {
    await Deno.mkdir(join(l.ws, "tools"), { recursive: true });
    await Deno.symlink(join(l.ws, "tools"), join(l.outside, "tools-link"));
    return join(l.outside, "tools-link");
  },
};

/** Outcome printed by this script. */
export interface HijackOutcome {
  plant: string;
  next: string;
  ran: string[];
}

if (import.meta.main) {
  const variant = VARIANTS[Deno.args[0]];
  if (!variant) throw new Error(`unknown variant ${Deno.args[0]}`);
  const original = Deno.env.get("PATH") ?? "";
  let entry = "";
  const lab = await makeLab({
    mode: "auto",
    prepare: async (world) => {
      entry = await variant(world);
      return { env: { PATH: `${entry}:${original}` } };
    },
  });
  Deno.chdir(lab.ws);
  Deno.env.set("PATH", `${entry}:${original}`);
  try {
    const dir = entry === "" ? lab.ws : entry.startsWith("/") ? entry : join(lab.ws, entry);
    const lines = [`mkdir -p ${dir}`];
    for (const name of PLANTED) {
      const mark = `touch ${lab.outside}/ran-${name} 2>/dev/null || touch ${lab.ws}/ran-${name}`;
      lines.push(
        `printf '#!/bin/sh\\n${mark}\\nexec /usr/bin/${name} "$@"\\n' > ${dir}/${name}`,
        `chmod +x ${dir}/${name}`,
      );
    }
    const plant = await lab.call("bash", { command: lines.join(" && ") });
    const next = await lab.call("bash", { command: "echo next" });
    await lab.call("grep", { pattern: "keep" });
    const ran: string[] = [];
    for (const name of PLANTED) {
      const was = (path: string) => Deno.lstat(path).then(() => true, () => false);
      if (await was(join(lab.outside, `ran-${name}`))) ran.push(`${name} unconfined`);
      if (await was(join(lab.ws, `ran-${name}`))) ran.push(`${name} in the sandbox`);
    }
    const outcome: HijackOutcome = {
      plant: plant.result.content,
      next: next.result.content,
      ran,
    };
    console.log(JSON.stringify(outcome));
  } finally {
    Deno.chdir("/");
    await lab.dispose();
  }
}
