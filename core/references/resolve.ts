/**
 * Resolves the `@` references of a prompt: existing local paths become file contents or
 * directory listings, `@<server>:<uri>` becomes an MCP resource, and anything else stays
 * ordinary text. Failures become notices; they never fail the turn.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import { isWithin } from "../../tools/paths.ts";
import { candidateTargets, findReferenceTokens, splitResourceTarget } from "./parse.ts";
import { listDirectory, readCappedFile, readHead } from "./read.ts";
import { ImageInputError, loadImage, sniffImageType } from "../vision/image_input.ts";
import type { Attachment, ResolvedReferences, ResolveOptions, SuppliedText } from "./types.ts";

/** Default cap on an included file or resource. */
export const DEFAULT_MAX_FILE_BYTES = 64 * 1024;
/** Default cap on a directory listing. */
export const DEFAULT_MAX_DIR_ENTRIES = 300;
const DEFAULT_RESOURCE_TIMEOUT_MS = 30_000;

function displayPath(root: string, absolute: string): string {
  const rel = relative(root, absolute);
  return rel === "" ? "." : rel.startsWith("..") || isAbsolute(rel) ? absolute : rel;
}

async function statOrUndefined(path: string): Promise<Deno.FileInfo | undefined> {
  try {
    return await Deno.stat(path);
  } catch {
    return undefined;
  }
}

/** Outcome of one token: an attachment, a notice, or plain text (undefined). */
type Outcome = { attachment: Attachment } | { notice: string } | undefined;

async function resolveResource(
  ref: string,
  { server, uri }: { server: string; uri: string },
  opts: ResolveOptions,
): Promise<Outcome> {
  const max = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const signals = [AbortSignal.timeout(opts.resourceTimeoutMs ?? DEFAULT_RESOURCE_TIMEOUT_MS)];
  if (opts.signal) signals.push(opts.signal);
  try {
    const text = await opts.mcp!.readResource(server, uri, { signal: AbortSignal.any(signals) });
    const truncated = new TextEncoder().encode(text).length > max;
    return {
      attachment: {
        kind: "resource",
        ref,
        server,
        uri,
        text: truncated ? truncateUtf8(text, max) : text,
        truncated,
      },
    };
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    return { notice: `@${ref}: cannot read MCP resource: ${(error as Error)?.message ?? error}` };
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = new TextEncoder().encode(text).subarray(0, maxBytes);
  return new TextDecoder().decode(bytes).replace(/\uFFFD$/, "");
}

/**
 * Why `absolute` may not be read for this reference, the way the read tools decide: the real
 * path (every symlink followed) must not be blocked by the read guard, and for text the user
 * did not type it must lie inside the workspace. Otherwise the real path, which is what is read.
 */
async function admit(
  ref: string,
  { absolute, info, from }: { absolute: string; info: Deno.FileInfo; from?: SuppliedText },
  opts: ResolveOptions,
): Promise<{ notice: string } | { real: string }> {
  const guard = opts.readGuard;
  if (!guard && !from) return { real: absolute };
  const shown = displayPath(opts.root, absolute);
  let real: string;
  let root: string;
  try {
    real = guard ? await guard.canonical(absolute) : await Deno.realPath(absolute);
    root = from ? await Deno.realPath(opts.root) : opts.root;
  } catch (error) {
    return { notice: `@${ref}: cannot resolve ${shown}: ${(error as Error)?.message ?? error}` };
  }
  if (from && !isWithin(root, real)) {
    return {
      notice: `@${ref} in ${from.source}: ${shown} is outside the workspace; references from ` +
        "the repository are read only inside it.",
    };
  }
  const by = guard?.blocked(real, info.isDirectory ? "LS" : "Read");
  if (by) return { notice: `@${ref}: not attached, the ${by} denies reading ${shown}.` };
  return { real };
}

async function resolvePath(
  ref: string,
  { absolute, real, info }: { absolute: string; real: string; info: Deno.FileInfo },
  opts: ResolveOptions,
): Promise<Outcome> {
  const path = displayPath(opts.root, absolute);
  const guard = opts.readGuard;
  try {
    if (info.isDirectory) {
      const listing = await listDirectory(real, {
        maxEntries: opts.maxDirEntries ?? DEFAULT_MAX_DIR_ENTRIES,
        signal: opts.signal,
        // Each entry where it is (a symlink by its own name), as `ls` checks them.
        ...(guard ? { hide: (entry: string) => guard.blocked(entry, "LS") !== undefined } : {}),
      });
      return {
        attachment: {
          kind: "directory",
          ref,
          path: path.endsWith("/") ? path : `${path}/`,
          listing: listing.lines.join("\n"),
          entries: listing.entries,
          truncated: listing.truncated,
        },
      };
    }
    if (!info.isFile) return { notice: `@${ref}: not a regular file or directory` };
    if (sniffImageType(await readHead(real, 16))) {
      const image = await loadImage(real, { cwd: opts.root, label: `@${ref}` });
      return { attachment: { kind: "image", ref, path, size: info.size, image } };
    }
    const content = await readCappedFile(real, opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
    if (content.binary) return { attachment: { kind: "binary", ref, path, size: content.size } };
    return {
      attachment: {
        kind: "file",
        ref,
        path,
        text: content.text,
        size: content.size,
        truncated: content.truncated,
      },
    };
  } catch (error) {
    if (opts.signal?.aborted) throw error;
    if (error instanceof ImageInputError) return { notice: error.message };
    return { notice: `@${ref}: cannot read ${path}: ${(error as Error)?.message ?? error}` };
  }
}

async function resolveTarget(
  candidates: string[],
  from: SuppliedText | undefined,
  opts: ResolveOptions,
): Promise<Outcome> {
  for (const target of candidates) {
    const resource = splitResourceTarget(target);
    if (resource && opts.mcp?.hasServer(resource.server)) {
      return await resolveResource(target, resource, opts);
    }
    const absolute = resolve(opts.root, target);
    const info = await statOrUndefined(absolute);
    if (!info) continue;
    const admitted = await admit(target, { absolute, info, from }, opts);
    if ("notice" in admitted) return admitted;
    return await resolvePath(target, { absolute, real: admitted.real, info }, opts);
  }
  return undefined;
}

/**
 * Resolves every reference of `text` concurrently. Tokens that name neither an existing path
 * nor a configured MCP server (e-mail addresses, `@mentions`) are left alone. A reference named
 * twice is read once. Paths obey `opts.readGuard`, and references in `opts.supplied` text stay
 * inside the workspace. Throws only when `opts.signal` is aborted.
 */
export async function resolveReferences(
  text: string,
  opts: ResolveOptions,
): Promise<ResolvedReferences> {
  const seen = new Set<string>();
  const jobs: Promise<Outcome>[] = [];
  for (const token of findReferenceTokens(text)) {
    const candidates = candidateTargets(token);
    // Supplied when any character of the path is: `@$1` is the user's path, `@/etc/$1` not.
    const first = token.start + 1 + (token.quoted ? 1 : 0);
    const last = token.end - (token.quoted ? 1 : 0);
    const from = opts.supplied?.find((s) => s.start < last && s.end > first);
    // The same path typed by the user and written by the repository are different requests.
    const key = `${from ? "supplied" : "typed"}\0${candidates.join("\0")}`;
    if (seen.has(key)) continue;
    seen.add(key);
    jobs.push(resolveTarget(candidates, from, opts));
  }
  const outcomes = await Promise.all(jobs);
  const attachments: Attachment[] = [];
  const notices: string[] = [];
  const included = new Set<string>();
  for (const outcome of outcomes) {
    if (!outcome) continue;
    if ("notice" in outcome) {
      notices.push(outcome.notice);
      continue;
    }
    const a = outcome.attachment;
    const id = a.kind === "resource" ? `${a.server}:${a.uri}` : `path:${a.path}`;
    if (included.has(id)) continue;
    included.add(id);
    attachments.push(a);
  }
  return { attachments, notices };
}
