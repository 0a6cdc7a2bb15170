/**
 * A running `reasonix serve` for tests: the real CLI host (`cli/host.ts`) on a temporary
 * repository and home whose model is the fake LLM server, the real web app on a loopback port,
 * and small HTTP helpers (log in, read the event stream).
 *
 * @module
 */
import { openHost } from "../../cli/host.ts";
import { type RunningServe, startServe } from "../../cli/serve/command.ts";
import { startFakeLlm } from "../fake_llm/mod.ts";
import type { FakeLlm, FakeScript } from "../fake_llm/types.ts";
import { makeHome, makeRepo } from "./support.ts";

/** A server with its fake model. */
export interface ServeLab {
  serve: RunningServe;
  fake: FakeLlm;
  repo: string;
  home: string;
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** The token printed at start (token mode with a generated token). */
  token?: string;
  close(): Promise<void>;
}

/** Starts a lab; `serveToml` is the body of `[serve]`, `toml` goes before it. */
export async function startServeLab(opts: {
  script: FakeScript;
  serveToml?: string;
  toml?: string;
  files?: Record<string, string>;
  env?: Record<string, string>;
}): Promise<ServeLab> {
  const fake = await startFakeLlm({ script: opts.script, keepAlive: true });
  const repo = await makeRepo(opts.files ?? {});
  const home = await makeHome(fake.url, `${opts.toml ?? ""}\n[serve]\n${opts.serveToml ?? ""}\n`);
  const host = await openHost({
    cwd: repo,
    env: { REASONIX_HOME: home, REASONIX_E2E_KEY: "sk-serve-test", ...opts.env },
    mcpReadyWaitMs: 500,
  });
  let serve: RunningServe;
  try {
    serve = await startServe(host, { host: "127.0.0.1", port: 0 });
  } catch (error) {
    await host.close();
    await fake.close();
    throw error;
  }
  const token = new URL(serve.url).searchParams.get("token") ?? undefined;
  return {
    serve,
    fake,
    repo,
    home,
    origin: serve.origin,
    token,
    close: async () => {
      await serve.close();
      await host.close();
      await fake.close();
      await Deno.remove(repo, { recursive: true }).catch(() => {});
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  };
}

/** A response read off the socket. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: string;
}

/**
 * One HTTP/1.1 request written by hand, for headers `fetch` will not send as given (`Host`).
 * The response is read to the end (`connection: close`).
 */
export async function rawRequest(
  origin: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  const url = new URL(origin);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  const headers = { host: url.host, connection: "close", ...opts.headers };
  const lines = [`${opts.method ?? "GET"} ${opts.path} HTTP/1.1`];
  for (const [k, v] of Object.entries(headers)) if (v !== "") lines.push(`${k}: ${v}`);
  if (opts.body !== undefined) {
    lines.push(`content-length: ${new TextEncoder().encode(opts.body).length}`);
  }
  await conn.write(new TextEncoder().encode(`${lines.join("\r\n")}\r\n\r\n${opts.body ?? ""}`));
  const text = await new Response(conn.readable).text();
  const [head, ...rest] = text.split("\r\n\r\n");
  const [statusLine, ...headerLines] = head.split("\r\n");
  const out = new Headers();
  for (const line of headerLines) {
    const i = line.indexOf(":");
    out.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  return { status: Number(statusLine.split(" ")[1]), headers: out, body: rest.join("\r\n\r\n") };
}

/** A logged-in browser: its cookie header and CSRF token. */
export interface Login {
  cookie: string;
  csrf: string;
  /** The `Set-Cookie` the login answered with. */
  setCookie: string;
}

/** The `name=value` of a `Set-Cookie` header. */
export function cookieOf(setCookie: string | null): string {
  return (setCookie ?? "").split(";")[0];
}

/** Logs in through the printed URL and reads the CSRF token from the app shell. */
export async function login(lab: ServeLab, url = lab.serve.url): Promise<Login> {
  const res = await fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  const setCookie = res.headers.get("set-cookie") ?? "";
  const cookie = cookieOf(setCookie);
  const page = await (await fetch(`${lab.origin}/`, { headers: { cookie } })).text();
  const csrf = /name="reasonix-csrf" content="([^"]+)"/.exec(page)?.[1];
  if (!csrf) throw new Error("no CSRF token in the app shell");
  return { cookie, csrf, setCookie };
}

/** A state-changing request as the page makes it. */
export async function post(
  lab: ServeLab,
  path: string,
  body: unknown,
  who: Login,
  headers: Record<string, string> = {},
): Promise<Response> {
  return await fetch(`${lab.origin}${path}`, {
    method: "POST",
    headers: {
      cookie: who.cookie,
      origin: lab.origin,
      "content-type": "application/json",
      "x-reasonix-csrf": who.csrf,
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** One frame of an event stream. */
export interface SseFrame {
  id?: string;
  event?: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** Reads an event stream until `until` says stop (or the stream ends, or `timeoutMs`). */
export async function readEvents(
  res: Response,
  until: (frame: SseFrame, all: SseFrame[]) => boolean,
  timeoutMs = 20_000,
): Promise<SseFrame[]> {
  const frames: SseFrame[] = [];
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const timer = setTimeout(() => reader.cancel(), timeoutMs);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) return frames;
      buffer += value;
      let cut;
      while ((cut = buffer.indexOf("\n\n")) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const frame: Partial<SseFrame> = {};
        let data: string | undefined;
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) frame.id = line.slice(4);
          else if (line.startsWith("event: ")) frame.event = line.slice(7);
          else if (line.startsWith("data: ")) data = line.slice(6);
        }
        if (data === undefined) continue;
        const f = { ...frame, data: JSON.parse(data) } as SseFrame;
        frames.push(f);
        if (until(f, frames)) return frames;
      }
    }
  } finally {
    clearTimeout(timer);
    await reader.cancel().catch(() => {});
  }
}

/** Opens the event stream of `sessionId` after `after` (as `Last-Event-ID` when `header`). */
export async function events(
  lab: ServeLab,
  who: Login,
  sessionId: string,
  after?: string,
  header = false,
): Promise<Response> {
  const q = after !== undefined && !header ? `?after=${encodeURIComponent(after)}` : "";
  return await fetch(`${lab.origin}/api/sessions/${sessionId}/events${q}`, {
    headers: {
      cookie: who.cookie,
      ...(header && after !== undefined ? { "last-event-id": after } : {}),
    },
  });
}

/** `GET /api/state` as `who`. */
// deno-lint-ignore no-explicit-any
export async function state(lab: ServeLab, who: Login): Promise<any> {
  const res = await fetch(`${lab.origin}/api/state`, { headers: { cookie: who.cookie } });
  if (!res.ok) throw new Error(`state answered ${res.status}`);
  return await res.json();
}
