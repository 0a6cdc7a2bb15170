/**
 * Runs the fake LLM server standalone, for benchmarks and manual runs:
 *
 * ```sh
 * deno run -A tests/fake_llm/main.ts --script steps.json [--port N] [--cycle] [--keep-alive]
 * ```
 *
 * `steps.json` holds a JSON array of steps. The first stdout line is the base URL; one line
 * per request follows. `--cycle` repeats the script instead of answering 500 when it runs out.
 *
 * @module
 */
import { type FakeStep, startFakeLlm } from "./mod.ts";

interface Args {
  script: string;
  port: number;
  cycle: boolean;
  keepAlive: boolean;
}

function bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { script: "", port: 0, cycle: false, keepAlive: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "--script") args.script = argv[++i] ?? "";
    else if (arg === "--port") args.port = Number(argv[++i]);
    else if (arg === "--cycle") args.cycle = true;
    else if (arg === "--keep-alive") args.keepAlive = true;
    else throw new TypeError(`unknown argument: ${arg}`);
  }
  if (args.script === "") throw new TypeError("--script <steps.json> is required");
  if (!Number.isInteger(args.port) || args.port < 0 || args.port > 65535) {
    throw new RangeError("--port must be an integer from 0 to 65535");
  }
  return args;
}

if (import.meta.main) {
  let args: Args;
  let steps: FakeStep[];
  try {
    args = parseArgs(Deno.args);
    steps = JSON.parse(await Deno.readTextFile(args.script));
    if (!Array.isArray(steps)) throw new TypeError("the script file must hold a JSON array");
  } catch (error) {
    console.error(`fake_llm: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(2);
  }
  const fake = await startFakeLlm({
    script: args.cycle && steps.length > 0 ? (_req, i) => steps[i % steps.length] : steps,
    port: args.port,
    keepAlive: args.keepAlive,
  });
  console.log(fake.url);
  let logged = 0;
  const logTimer = setInterval(() => {
    for (; logged < fake.requests.length; logged++) {
      const r = fake.requests[logged];
      console.log(
        `#${logged + 1} ${r.method} ${r.path} body=${
          bytes(r.bodyText)
        }B shared=${r.sharedPrefixBytes}B`,
      );
    }
  }, 200);
  const stop = async (): Promise<void> => {
    clearInterval(logTimer);
    await fake.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
}
