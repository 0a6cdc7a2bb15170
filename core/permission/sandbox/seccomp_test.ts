import assert from "node:assert/strict";
import {
  AUDIT_ARCH,
  encodeFilter,
  type SeccompArch,
  seccompArch,
  type SockFilter,
  unixSocketFilter,
  withSeccompFd,
} from "./seccomp.ts";

const KILL = 0x80000000;
const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;

Deno.test("the x86_64 filter checks the arch, folds x32 calls and refuses AF_UNIX sockets", () => {
  assert.deepEqual(unixSocketFilter("x86_64"), [
    { code: 0x20, jt: 0, jf: 0, k: 4 }, // A = arch
    { code: 0x15, jt: 1, jf: 0, k: 0xc000003e }, // AUDIT_ARCH_X86_64? skip the kill
    { code: 0x06, jt: 0, jf: 0, k: KILL },
    { code: 0x20, jt: 0, jf: 0, k: 0 }, // A = nr
    { code: 0x54, jt: 0, jf: 0, k: 0xbfffffff }, // A &= ~__X32_SYSCALL_BIT
    { code: 0x15, jt: 4, jf: 0, k: 425 }, // io_uring_setup -> deny
    { code: 0x15, jt: 0, jf: 2, k: 41 }, // socket? else allow
    { code: 0x20, jt: 0, jf: 0, k: 16 }, // A = args[0] (low half)
    { code: 0x15, jt: 1, jf: 0, k: 1 }, // AF_UNIX -> deny
    { code: 0x06, jt: 0, jf: 0, k: ALLOW },
    { code: 0x06, jt: 0, jf: 0, k: EPERM },
  ]);
});

Deno.test("the aarch64 filter uses its own arch and socket numbers and has no x32 step", () => {
  assert.deepEqual(unixSocketFilter("aarch64"), [
    { code: 0x20, jt: 0, jf: 0, k: 4 },
    { code: 0x15, jt: 1, jf: 0, k: 0xc00000b7 },
    { code: 0x06, jt: 0, jf: 0, k: KILL },
    { code: 0x20, jt: 0, jf: 0, k: 0 },
    { code: 0x15, jt: 4, jf: 0, k: 425 },
    { code: 0x15, jt: 0, jf: 2, k: 198 },
    { code: 0x20, jt: 0, jf: 0, k: 16 },
    { code: 0x15, jt: 1, jf: 0, k: 1 },
    { code: 0x06, jt: 0, jf: 0, k: ALLOW },
    { code: 0x06, jt: 0, jf: 0, k: EPERM },
  ]);
});

Deno.test("the filter is encoded as little-endian struct sock_filter, 8 bytes each", () => {
  const bytes = encodeFilter(unixSocketFilter("x86_64"));
  assert.equal(bytes.length, 11 * 8);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  assert.equal(
    hex,
    // code (u16) | jt | jf | k (u32)
    "2000" + "00" + "00" + "04000000" +
      "1500" + "01" + "00" + "3e0000c0" +
      "0600" + "00" + "00" + "00000080" +
      "2000" + "00" + "00" + "00000000" +
      "5400" + "00" + "00" + "ffffffbf" +
      "1500" + "04" + "00" + "a9010000" +
      "1500" + "00" + "02" + "29000000" +
      "2000" + "00" + "00" + "10000000" +
      "1500" + "01" + "00" + "01000000" +
      "0600" + "00" + "00" + "0000ff7f" +
      "0600" + "00" + "00" + "01000500",
  );
});

/** Runs a classic-BPF program of the four opcodes the filter uses on one `seccomp_data`. */
function evaluate(
  filter: readonly SockFilter[],
  call: { arch: number; nr: number; arg0?: number },
): number {
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, call.nr >>> 0, true);
  data.setUint32(4, call.arch, true);
  data.setUint32(16, (call.arg0 ?? 0) >>> 0, true);
  let a = 0;
  for (let pc = 0; pc < filter.length; pc++) {
    const ins = filter[pc];
    if (ins.code === 0x20) a = data.getUint32(ins.k, true);
    else if (ins.code === 0x54) a = (a & ins.k) >>> 0;
    else if (ins.code === 0x15) pc += a === ins.k ? ins.jt : ins.jf;
    else if (ins.code === 0x06) return ins.k;
    else throw new Error(`opcode ${ins.code}`);
  }
  throw new Error("fell off the end");
}

const CALLS: Record<SeccompArch, { socket: number; socketpair: number; connect: number }> = {
  x86_64: { socket: 41, socketpair: 53, connect: 42 },
  aarch64: { socket: 198, socketpair: 199, connect: 203 },
};

Deno.test("the filter refuses unix sockets and io_uring, allows the rest, kills other ABIs", () => {
  for (const arch of ["x86_64", "aarch64"] as const) {
    const filter = unixSocketFilter(arch);
    const run = (nr: number, arg0?: number, a = AUDIT_ARCH[arch]) =>
      evaluate(filter, { arch: a, nr, arg0 });
    const n = CALLS[arch];
    assert.equal(run(n.socket, 1), EPERM, `${arch} socket(AF_UNIX)`);
    assert.equal(run(n.socket, 2), ALLOW, `${arch} socket(AF_INET)`);
    assert.equal(run(n.socket, 10), ALLOW, `${arch} socket(AF_INET6)`);
    assert.equal(run(n.socketpair, 1), ALLOW, `${arch} socketpair(AF_UNIX)`);
    assert.equal(run(n.connect, 1), ALLOW, `${arch} connect on an inherited socket`);
    assert.equal(run(425), EPERM, `${arch} io_uring_setup`);
    assert.equal(run(0), ALLOW, `${arch} read`);
    // A 32-bit program (i386, arm) could reach sockets through socketcall: it is killed.
    assert.equal(run(n.socket, 1, 0x40000003), KILL, `${arch} under i386`);
    assert.equal(run(n.socket, 1, 0x40000028), KILL, `${arch} under arm`);
  }
  const x86 = unixSocketFilter("x86_64");
  assert.equal(evaluate(x86, { arch: AUDIT_ARCH.x86_64, nr: 0x40000000 | 41, arg0: 1 }), EPERM);
  assert.equal(evaluate(x86, { arch: AUDIT_ARCH.x86_64, nr: 0x40000000 | 41, arg0: 2 }), ALLOW);
  // The x32 fold only applies on x86_64: on aarch64 that number is just unknown.
  const arm = unixSocketFilter("aarch64");
  assert.equal(evaluate(arm, { arch: AUDIT_ARCH.aarch64, nr: 0x40000000 | 198, arg0: 1 }), ALLOW);
});

Deno.test("only x86_64 and aarch64 have a filter", () => {
  assert.equal(seccompArch("x86_64"), "x86_64");
  assert.equal(seccompArch("aarch64"), "aarch64");
  assert.equal(seccompArch("riscv64"), undefined);
});

Deno.test({
  name: "the wrapper hands bwrap exactly the filter bytes on descriptor 3, stdin untouched",
  ignore: Deno.build.os === "windows",
  async fn() {
    const bytes = encodeFilter(unixSocketFilter("x86_64"));
    // Stand-in for bwrap: reports what it read on fd 3 and then its stdin.
    const probe = "od -An -v -tx1 <&3 | tr -d ' \\n'; echo; cat";
    const wrapped = withSeccompFd("/bin/bash", bytes, { program: "/bin/sh", args: ["-c", probe] });
    assert.equal(wrapped.program, "/bin/bash");
    assert.deepEqual(wrapped.args.slice(-2), ["-c", probe]);
    const child = new Deno.Command(wrapped.program, {
      args: wrapped.args,
      stdin: "piped",
      stdout: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode("stdin text"));
    await writer.close();
    const out = new TextDecoder().decode((await child.output()).stdout).split("\n");
    assert.equal(out[0], Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(""));
    assert.equal(out[1], "stdin text");
  },
});

Deno.test({
  name: "the wrapper passes exit codes through",
  ignore: Deno.build.os === "windows",
  async fn() {
    const wrapped = withSeccompFd("/bin/bash", new Uint8Array(8), {
      program: "/bin/sh",
      args: ["-c", "exit 7"],
    });
    const out = await new Deno.Command(wrapped.program, { args: wrapped.args }).output();
    assert.equal(out.code, 7);
  },
});
