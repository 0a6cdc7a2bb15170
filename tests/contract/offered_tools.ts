/**
 * The tools a default run offers the model, assembled the way `reasonix run` assembles them
 * (`openHost`, then `createAgent`): the enabled built-ins, `history`, `memory`, `remember`,
 * `forget` and `use_capability`. The contract documents cover exactly this list.
 *
 * @module
 */
import type { Tool } from "../../tools/types.ts";
import { openTestAgent } from "../support/host_agent.ts";

/** The offered tools, sorted by name, with the canonical schemas the model receives. */
export async function offeredTools(): Promise<Tool[]> {
  const home = await Deno.makeTempDir({ prefix: "reasonix-contract-home-" });
  const cwd = await Deno.makeTempDir({ prefix: "reasonix-contract-cwd-" });
  try {
    // A placeholder key: nothing is sent, the provider is only bound.
    const runtime = await openTestAgent({
      cwd,
      env: { REASONIX_HOME: home, DEEPSEEK_API_KEY: "sk-contract" },
    });
    await runtime.dispose();
    const registry = runtime.agent.registry;
    return registry.names().map((name) => registry.get(name)!);
  } finally {
    await Deno.remove(home, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
}
