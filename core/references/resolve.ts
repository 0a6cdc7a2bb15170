/**
 * Resolves the `@` references of a prompt: existing local paths become file contents or
 * directory listings, `@<server>:<uri>` becomes an MCP resource, and anything else stays
 * ordinary text. Failures become notices; they never fail the turn.
 *
 * @module
 */
import { isAbsolute, relative, resolve } from "node:path";
import { candidateTargets, findReferenceTokens, splitResourceTarget } from "./parse.ts";
import { listDirectory, readCappedFile, readHead } from "./read.ts";
import { ImageInputError, loadImage, sniffImageType } from "../vision/image_input.ts";
import type { Attachment, ResolvedReferences, ResolveOptions } from "./types.ts";

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

async function resolvePath(
  ref: string,
  { absolute, info }: { absolute: string; info: Deno.FileInfo },
  opts: ResolveOptions,
): Promise<Outcome> {
  const path = displayPath(opts.root, absolute);
  try {
    if (info.isDirectory) {
      const listing = await listDirectory(absolute, {
        maxEntries: opts.maxDirEntries ?? DEFAULT_MAX_DIR_ENTRIES,
        signal: opts.signal,
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
    if (sniffImageType(await readHead(absolute, 16))) {
      const image = await loadImage(absolute, { cwd: opts.root, label: `@${ref}` });
      return { attachment: { kind: "image", ref, path, size: info.size, image } };
    }
    const content = await readCappedFile(absolute, opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES);
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
  opts: ResolveOptions,
): Promise<Outcome> {
  for (const target of candidates) {
    const resource = splitResourceTarget(target);
    if (resource && opts.mcp?.hasServer(resource.server)) {
      return await resolveResource(target, resource, opts);
    }
    const absolute = resolve(opts.root, target);
    const info = await statOrUndefined(absolute);
    if (info) return await resolvePath(target, { absolute, info }, opts);
  }
  return undefined;
}

/**
 * Resolves every reference of `text` concurrently. Tokens that name neither an existing path
 * nor a configured MCP server (e-mail addresses, `@mentions`) are left alone. A reference named
 * twice is read once. Throws only when `opts.signal` is aborted.
 */
export async function resolveReferences(
  text: string,
  opts: ResolveOptions,
): Promise<ResolvedReferences> {
  const seen = new Set<string>();
  const jobs: Promise<Outcome>[] = [];
  for (const token of findReferenceTokens(text)) {
    const candidates = candidateTargets(token);
    const key = candidates.join("\0");
    if (seen.has(key)) continue;
    seen.add(key);
    jobs.push(resolveTarget(candidates, opts));
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
