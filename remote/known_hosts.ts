/**
 * OpenSSH `known_hosts` checking: plain and hashed (`|1|salt|hash`) host names, `[host]:port`
 * for other ports, `@revoked` lines, and simple `*`/`?` patterns with `!` negation. A key the
 * file lists for the host is accepted; a different key of the same type is a changed key,
 * refused with the file and line that hold the old one.
 *
 * @module
 */
import { createHash, createHmac } from "node:crypto";

/** One parsed known_hosts line. */
interface KnownLine {
  file: string;
  line: number;
  marker: "" | "@revoked" | "@cert-authority";
  hosts: string;
  type: string;
  key: string;
}

/** What the known_hosts files say about a presented key. */
export type HostKeyVerdict =
  | { kind: "known"; file: string; line: number }
  | { kind: "unknown"; knownTypes: string[] }
  | { kind: "changed"; file: string; line: number }
  | { kind: "revoked"; file: string; line: number };

/** The name a host has in known_hosts: `host`, or `[host]:port` off port 22. */
export function knownHostsName(host: string, port: number): string {
  return port === 22 ? host : `[${host}]:${port}`;
}

/** `SHA256:…` as `ssh-keygen -l` prints it. */
export function fingerprint(key: Uint8Array): string {
  return "SHA256:" + createHash("sha256").update(key).digest("base64").replace(/=+$/, "");
}

/** The key type a raw SSH public-key blob names (its first string). */
export function keyType(blob: Uint8Array): string {
  const view = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  const n = view.getUint32(0);
  return new TextDecoder().decode(blob.subarray(4, 4 + n));
}

function globToRegExp(pattern: string): RegExp {
  const body = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(
    /\?/g,
    ".",
  );
  return new RegExp(`^${body}$`, "i");
}

/** Whether the comma-separated host field names `name`. */
function hostsMatch(field: string, name: string): boolean {
  if (field.startsWith("|1|")) {
    const [, , salt, hash] = field.split("|");
    if (!salt || !hash) return false;
    const mac = createHmac("sha1", Buffer.from(salt, "base64")).update(name).digest("base64");
    return mac === hash;
  }
  let matched = false;
  for (const pattern of field.split(",")) {
    const negated = pattern.startsWith("!");
    const p = negated ? pattern.slice(1) : pattern;
    if (!globToRegExp(p).test(name)) continue;
    if (negated) return false;
    matched = true;
  }
  return matched;
}

function parseLines(file: string, text: string): KnownLine[] {
  const out: KnownLine[] = [];
  text.split("\n").forEach((raw, i) => {
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const fields = trimmed.split(/\s+/);
    let marker: KnownLine["marker"] = "";
    if (fields[0] === "@revoked" || fields[0] === "@cert-authority") {
      marker = fields.shift() as KnownLine["marker"];
    }
    const [hosts, type, key] = fields;
    if (!hosts || !type || !key) return;
    out.push({ file, line: i + 1, marker, hosts, type, key });
  });
  return out;
}

/** Reads known_hosts files (missing ones are empty). */
export async function readKnownHosts(files: readonly string[]): Promise<KnownLine[]> {
  const lines: KnownLine[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await Deno.readTextFile(file);
    } catch {
      continue;
    }
    lines.push(...parseLines(file, text));
  }
  return lines;
}

/** The key types known_hosts lists for `name`, so the handshake can prefer them. */
export function knownTypes(lines: readonly KnownLine[], name: string): string[] {
  return [
    ...new Set(
      lines.filter((l) => l.marker === "" && hostsMatch(l.hosts, name)).map((l) => l.type),
    ),
  ];
}

/** Judges the key `blob` the server presented for `name`. */
export function verifyHostKey(
  lines: readonly KnownLine[],
  name: string,
  blob: Uint8Array,
): HostKeyVerdict {
  const type = keyType(blob);
  const encoded = Buffer.from(blob).toString("base64");
  const forHost = lines.filter((l) => hostsMatch(l.hosts, name));
  const revoked = lines.find((l) => l.marker === "@revoked" && l.key === encoded);
  if (revoked) return { kind: "revoked", file: revoked.file, line: revoked.line };
  const plain = forHost.filter((l) => l.marker === "");
  const same = plain.find((l) => l.type === type && l.key === encoded);
  if (same) return { kind: "known", file: same.file, line: same.line };
  const other = plain.find((l) => l.type === type);
  if (other) return { kind: "changed", file: other.file, line: other.line };
  return { kind: "unknown", knownTypes: [...new Set(plain.map((l) => l.type))] };
}

/** Appends `name type key` to `file` (creating it, and its directory, private). */
export async function addKnownHost(file: string, name: string, blob: Uint8Array): Promise<void> {
  const dir = file.slice(0, file.lastIndexOf("/"));
  if (dir) await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const line = `${name} ${keyType(blob)} ${Buffer.from(blob).toString("base64")}\n`;
  await Deno.writeTextFile(file, line, { append: true, mode: 0o600 });
}
