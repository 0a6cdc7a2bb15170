/**
 * Types of `@` references (spec §3.9).
 *
 * @module
 */
import type { ImagePart } from "../../providers/types.ts";

/** Reads MCP resources for `@<server>:<uri>`; injected so core does not depend on plugins. */
export interface McpResourceReader {
  /** Whether `name` is a configured MCP server (only then is `name:…` read as a resource). */
  hasServer(name: string): boolean;
  /** The resource's text. Throws when it cannot be read. */
  readResource(server: string, uri: string, opts: { signal: AbortSignal }): Promise<string>;
}

/** What one reference resolved to. `ref` is the token as typed, without the `@`. */
export type Attachment =
  | {
    kind: "file";
    ref: string;
    /** Path as shown: relative to the workspace root when inside it. */
    path: string;
    text: string;
    /** File size in bytes. */
    size: number;
    /** Whether only the first `maxFileBytes` were included. */
    truncated: boolean;
  }
  | { kind: "binary"; ref: string; path: string; size: number }
  | {
    /** A PNG, JPEG, GIF or WebP file, attached to the message as an image. */
    kind: "image";
    ref: string;
    path: string;
    size: number;
    image: ImagePart;
  }
  | {
    kind: "directory";
    ref: string;
    path: string;
    /** Depth-first listing, one entry per line, indented by depth. */
    listing: string;
    entries: number;
    truncated: boolean;
  }
  | {
    kind: "resource";
    ref: string;
    server: string;
    uri: string;
    text: string;
    truncated: boolean;
  };

/** Options of {@link resolveReferences}. */
export interface ResolveOptions {
  /** Relative paths resolve against this directory (the workspace root). */
  root: string;
  signal?: AbortSignal;
  mcp?: McpResourceReader;
  /** Largest file or resource text included, in bytes. Default 64 KiB. */
  maxFileBytes?: number;
  /** Most directory entries listed. Default 300. */
  maxDirEntries?: number;
  /** Upper bound for one MCP resource read. Default 30 s. */
  resourceTimeoutMs?: number;
}

/** Attachments in order of first mention, and notices for references that failed. */
export interface ResolvedReferences {
  attachments: Attachment[];
  notices: string[];
}
