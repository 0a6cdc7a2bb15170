/**
 * The seccomp filter that keeps a no-network sandbox away from the host's unix sockets.
 *
 * A network namespace already cuts TCP, UDP and abstract unix sockets, but a unix socket bound
 * to a path (docker.sock, the D-Bus session bus, ssh-agent) is reached through the file
 * system, which the sandbox shares read-only. Connecting needs a socket first, so the filter
 * makes `socket(AF_UNIX, …)` fail with `EPERM`. `socketpair` (a private pair, no address) and
 * every other call stay allowed. `io_uring_setup` is refused too: io_uring can create sockets
 * without the `socket` system call.
 *
 * The program is classic BPF as the kernel takes it (`struct sock_filter { u16 code; u8 jt;
 * u8 jf; u32 k; }`, little-endian on both supported architectures), handed to bubblewrap's
 * `--seccomp FD`.
 *
 * @module
 */

/** Architectures the filter is built for: the ones Deno ships for. */
export type SeccompArch = "x86_64" | "aarch64";

/** `AUDIT_ARCH_*` values the kernel reports in `seccomp_data.arch`. */
export const AUDIT_ARCH: Readonly<Record<SeccompArch, number>> = {
  x86_64: 0xc000003e,
  aarch64: 0xc00000b7,
};

/** `__NR_socket` per architecture. */
const NR_SOCKET: Readonly<Record<SeccompArch, number>> = { x86_64: 41, aarch64: 198 };
/** `__NR_io_uring_setup`, the same number on both. */
const NR_IO_URING_SETUP = 425;
/** x86_64 marks x32-ABI calls with this bit in the syscall number. */
const X32_SYSCALL_BIT = 0x40000000;
const AF_UNIX = 1;
const EPERM = 1;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;

// Offsets into `struct seccomp_data { int nr; u32 arch; u64 ip; u64 args[6]; }`.
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
/** The low 32 bits of `args[0]` (little-endian): `socket`'s domain is an `int`. */
const OFFSET_ARG0 = 16;

const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_ALU_AND_K = 0x54;
const BPF_RET_K = 0x06;

/** One BPF instruction. */
export interface SockFilter {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

type Label = "native" | "allow" | "deny";
type Step =
  & { label?: Label }
  & (
    | { op: "load"; offset: number }
    | { op: "and"; mask: number }
    | { op: "jeq"; value: number; yes?: Label; no?: Label }
    | { op: "ret"; value: number }
  );

/** Resolves label jumps (relative, forward only) into instructions. */
function assemble(steps: readonly Step[]): SockFilter[] {
  const at = new Map<Label, number>();
  steps.forEach((s, i) => {
    if (s.label) at.set(s.label, i);
  });
  const offset = (from: number, label?: Label): number => {
    if (label === undefined) return 0;
    const distance = at.get(label)! - from - 1;
    if (distance < 0 || distance > 255) throw new RangeError(`bad jump to ${label}`);
    return distance;
  };
  return steps.map((s, i): SockFilter => {
    switch (s.op) {
      case "load":
        return { code: BPF_LD_W_ABS, jt: 0, jf: 0, k: s.offset };
      case "and":
        return { code: BPF_ALU_AND_K, jt: 0, jf: 0, k: s.mask };
      case "jeq":
        return { code: BPF_JMP_JEQ_K, jt: offset(i, s.yes), jf: offset(i, s.no), k: s.value };
      case "ret":
        return { code: BPF_RET_K, jt: 0, jf: 0, k: s.value };
    }
  });
}

/**
 * The filter for `arch`. A call made under another architecture (a 32-bit program, whose
 * socket calls go through `socketcall` and cannot be inspected) kills the process instead of
 * slipping past the check.
 */
export function unixSocketFilter(arch: SeccompArch): SockFilter[] {
  return assemble([
    { op: "load", offset: OFFSET_ARCH },
    { op: "jeq", value: AUDIT_ARCH[arch], yes: "native" },
    { op: "ret", value: SECCOMP_RET_KILL_PROCESS },
    { op: "load", offset: OFFSET_NR, label: "native" },
    // x32 calls reach the same kernel code as their 64-bit twins: check them as such.
    ...(arch === "x86_64" ? [{ op: "and", mask: ~X32_SYSCALL_BIT >>> 0 } as const] : []),
    { op: "jeq", value: NR_IO_URING_SETUP, yes: "deny" },
    { op: "jeq", value: NR_SOCKET[arch], no: "allow" },
    { op: "load", offset: OFFSET_ARG0 },
    { op: "jeq", value: AF_UNIX, yes: "deny" },
    { op: "ret", value: SECCOMP_RET_ALLOW, label: "allow" },
    { op: "ret", value: SECCOMP_RET_ERRNO | EPERM, label: "deny" },
  ]);
}

/** The program as the kernel reads it: 8 little-endian bytes per instruction. */
export function encodeFilter(filter: readonly SockFilter[]): Uint8Array {
  const bytes = new Uint8Array(filter.length * 8);
  const view = new DataView(bytes.buffer);
  filter.forEach((ins, i) => {
    view.setUint16(i * 8, ins.code, true);
    view.setUint8(i * 8 + 2, ins.jt);
    view.setUint8(i * 8 + 3, ins.jf);
    view.setUint32(i * 8 + 4, ins.k, true);
  });
  return bytes;
}

/** The architecture to build for, or undefined where no filter can be built. */
export function seccompArch(arch: string = Deno.build.arch): SeccompArch | undefined {
  return arch === "x86_64" || arch === "aarch64" ? arch : undefined;
}

/**
 * The file descriptor bubblewrap reads the filter from. Deno cannot hand a child extra
 * descriptors, so {@linkcode withSeccompFd} opens it with a shell redirection.
 */
export const SECCOMP_FD = 3;

/**
 * Wraps a bubblewrap command line so that descriptor {@linkcode SECCOMP_FD} reads `bytes`
 * from a pipe. The script is fixed text; the filter (each byte spelt `\xHH` for bash's
 * built-in `printf`) and the bwrap argv arrive as positional parameters, so the shell parses
 * nothing in them. With `lastpipe` the last part of `printf … | exec bwrap … 3<&0` runs in the
 * shell itself, so bwrap replaces it (its exit status and signals reach the caller unchanged)
 * and no stray descriptor is left over, as process substitution would leave one. stdin is
 * handed on through descriptor 4. No file is written: a filter on disk could be swapped by a
 * sandboxed command before the next one starts. bubblewrap reads the pipe to its end and
 * closes it before it starts the command.
 */
export function withSeccompFd(
  bash: string,
  bytes: Uint8Array,
  { program, args }: { program: string; args: readonly string[] },
): { program: string; args: string[] } {
  const escaped = Array.from(bytes, (b) => `\\x${b.toString(16).padStart(2, "0")}`).join("");
  return {
    program: bash,
    args: [
      "-c",
      `shopt -s lastpipe; f=$1; shift; exec 4<&0; ` +
      `printf "$f" | exec "$@" ${SECCOMP_FD}<&0 0<&4 4<&-`,
      "reasonix-seccomp",
      escaped,
      program,
      ...args,
    ],
  };
}
