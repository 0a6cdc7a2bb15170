/**
 * Tests' shortcut to the CLI's construction path: `openHost` then `host.createAgent`, with the
 * pieces tests look at close to hand.
 *
 * @module
 */
import { type CliHost, type HostFlags, openHost, type OpenHostOptions } from "../../cli/host.ts";
import type { AgentSpec, HostedAgent } from "../../core/host/mod.ts";

/** A host with one agent on it. */
export interface TestAgent {
  host: CliHost;
  agent: HostedAgent;
  /** The agent's transcript. */
  sessionPath: string;
  /** Closes the agent, then the host (MCP servers, temporary directory). */
  dispose(): Promise<void>;
}

/** Opens a host the way the CLI does and builds one agent on it (`spec` on top of `flags`). */
export async function openTestAgent(
  opts: Omit<OpenHostOptions, "flags"> & {
    flags?: HostFlags & { resume?: string; reasoningEffort?: string };
    spec?: AgentSpec;
  },
): Promise<TestAgent> {
  const { resume, reasoningEffort, ...flags } = opts.flags ?? {};
  const host = await openHost({ ...opts, flags });
  try {
    const agent = await host.createAgent({
      model: flags.model,
      ...(resume !== undefined ? { transcript: { resume } } : {}),
      ...(flags.budget || reasoningEffort
        ? { context: { budget: flags.budget, reasoningEffort } }
        : {}),
      ...opts.spec,
    });
    return {
      host,
      agent,
      sessionPath: agent.sessionPath!,
      dispose: async () => {
        await agent.close();
        await host.close();
      },
    };
  } catch (error) {
    await host.close();
    throw error;
  }
}
