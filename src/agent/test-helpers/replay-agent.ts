import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { PromptContext } from "../../context/prompt-context.js"
import { ContextManager } from "../../history/context-manager.js"
import type { PromptBuilder } from "../../prompt/builder.js"
import { endpointFor } from "../../providers/endpoints.js"
import type { ReplayScript } from "../../replay/script.js"
import { type ReplayServer, startReplayServer } from "../../replay/server.js"
import type { AgentEvent } from "../events.js"
import { Agent, type RunResult } from "../loop.js"
import type { McpPool } from "../mcp-pool.js"
import { Session } from "../session.js"
import { sendTo } from "../transport/http.js"

/**
 * Runs the agent over a replay server speaking Anthropic Messages, with MCP tools from `pool`, approving every
 * call. The server is started here; the caller closes it (and the pool) after its assertions.
 */
export async function runReplayAgent(input: {
  context: PromptContext
  builder: PromptBuilder
  script: ReplayScript
  pool: McpPool
  session: { id: string; task: string }
  maxTurns: number
}): Promise<{ result: RunResult; events: AgentEvent[]; server: ReplayServer }> {
  const { context, builder, script, pool } = input
  const server = await startReplayServer({ script })
  const endpoint = endpointFor({ provider: "anthropic", env: {}, baseUrl: server.urls.anthropic, apiKey: "replay" })
  const events: AgentEvent[] = []
  let clock = 0
  const cwd = context.cwd
  const meta = { ...input.session, created: 0, cwd, model: "m", provider: "anthropic" }
  const agent = new Agent({
    context,
    builder,
    manager: await ContextManager.create(),
    send: sendTo(endpoint),
    session: await Session.create(cwd, meta, { dir: await mkdtemp(join(tmpdir(), "pl-replay-sessions-")) }),
    approve: "all",
    maxTurns: input.maxTurns,
    now: () => ++clock,
    today: () => "2026-11-29",
    executor: { mcp: pool },
    onEvent: (e) => events.push(e),
  })
  try {
    return { result: await agent.run(), events, server }
  } catch (error) {
    await server.close()
    throw error
  }
}
