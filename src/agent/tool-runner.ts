import type { InstructionTracker } from "../context/activate.js"
import type { InstructionFile, PromptContext } from "../context/prompt-context.js"
import { clipToolResult, MIN_RESULT_CHARS } from "../history/clip.js"
import type { FileTracker } from "../history/file-tracker.js"
import type { TextBlock, ToolResultBlock, ToolUseBlock } from "../history/message.js"
import { instructionsIntro, TAG } from "../notices.js"
import { wrapTag } from "../tag-wrap.js"
import type { DeferredTools } from "../tools/search/deferred-tools.js"
import { SEARCH_TOOLS_NAME } from "../tools/search/fixed-tools.js"
import type { EnabledTool } from "../tools/spec.js"
import { type ApprovalPolicy, type ConfirmCall, deniedMessage, needsApproval } from "./approval.js"
import type { AgentEvent } from "./events.js"
import { type ControlSignal, type ExecutorEnv, execute, type ToolOutcome } from "./executors/index.js"
import { resolveToolSearchCall } from "./tool-search-calls.js"

/** What running one assistant message's tool calls produced. */
export interface ToolRound {
  /** One tool_result per tool_use, in call order. */
  results: ToolResultBlock[]
  /** Text to add after the results: instruction files the touched paths switched on. */
  notes: TextBlock[]
  /** The first control signal (completion, plan response, ...), when a control tool ran. */
  control?: ControlSignal
}

/** Everything the runner needs besides the calls. */
export interface ToolRunnerEnv {
  /** Calls whose arguments were not valid JSON, by call id, with the raw text the model wrote. */
  invalidArguments?: ReadonlyMap<string, string>
  context: PromptContext
  tools: readonly EnabledTool[]
  /** The tools tool search left out of the list (searched and called through the search tools). */
  deferred?: DeferredTools
  executor: ExecutorEnv
  approve: ApprovalPolicy
  confirm?: ConfirmCall
  instructions: InstructionTracker
  files: FileTracker
  now: () => number
  emit: (event: AgentEvent) => void
  signal: AbortSignal
  /**
   * Most text characters the whole round's results may take (a share of the model's budget); a larger
   * result is cut, head and tail kept, with a notice saying how to get the rest. Default: no limit.
   */
  maxResultChars?: number
}

function outcomeFailure(content: string, summary: string): ToolOutcome {
  return { content, isError: true, summary, touched: [] }
}

/**
 * The instruction files that apply to a file, rendered for the model. They are data from the project: the
 * wrapper neutralizes our tags inside them and escapes the path.
 */
function renderInstructions(files: readonly InstructionFile[]): TextBlock[] {
  return files.map((f) => ({
    type: "text",
    text: wrapTag(TAG.instructions, instructionsIntro(f.base ?? ".", f.text.trim()), {
      attributes: { path: f.path },
    }),
  }))
}

/** A one-line description of a call for an approval question. */
function describeCall(tool: EnabledTool, input: unknown): string {
  const args = JSON.stringify(input)
  return `${tool.name} ${args.length > 200 ? `${args.slice(0, 200)}…` : args}`
}

/** Maps a call to the executor's tool id and input: renamed tools back to ids, MCP tools to use_mcp_tool. */
function executorCall(tool: EnabledTool, input: unknown): { name: string; input: unknown } {
  if (tool.mcp)
    return {
      name: "use_mcp_tool",
      input: { server_name: tool.mcp.server, tool_name: tool.mcp.tool, arguments: input ?? {} },
    }
  return { name: tool.id, input }
}

/**
 * Runs the tool calls of one assistant message, one after another: approval, execution, file
 * tracking, and the instruction files the touched paths switch on. Never throws.
 */
export async function runToolCalls(calls: readonly ToolUseBlock[], env: ToolRunnerEnv): Promise<ToolRound> {
  const round: ToolRound = { results: [], notes: [] }
  const byName = new Map(env.tools.map((t) => [t.name, t]))
  for (const call of calls) {
    env.emit({ type: "tool_call", id: call.id, name: call.name, input: call.input })
    const found = byName.get(call.name)
    // Tool search: a search is answered here; a call through the call tool names the tool that really runs.
    const resolved = env.signal.aborted ? undefined : resolveToolSearchCall(call, found, byName, env.deferred)
    const tool = resolved && "tool" in resolved ? resolved.tool : found
    const input = resolved && "tool" in resolved ? resolved.input : call.input
    let outcome: ToolOutcome
    let denied = false
    const invalid = env.invalidArguments?.get(call.id)
    if (env.signal.aborted) {
      outcome = outcomeFailure("The run was interrupted before this call ran.", `${call.name}: not run (interrupted)`)
    } else if (invalid !== undefined) {
      const shown = invalid.length > 500 ? `${invalid.slice(0, 500)}…` : invalid
      outcome = outcomeFailure(
        `The arguments of this call were not valid JSON, so it did not run. You wrote: ${shown}\nCall the tool again with a valid JSON object.`,
        `${call.name}: invalid JSON arguments`,
      )
    } else if (resolved && "outcome" in resolved) {
      outcome = resolved.outcome
    } else if (!tool) {
      const names = env.tools.map((t) => t.name).join(", ")
      const more = env.deferred ? ` More tools are found with ${SEARCH_TOOLS_NAME}.` : ""
      outcome = outcomeFailure(
        `There is no tool named "${call.name}". Available tools: ${names}.${more}`,
        `${call.name}: unknown tool`,
      )
    } else if (needsApproval(env.approve, tool.kind) && !(await approved(tool, input, env))) {
      denied = true
      const why = env.confirm && env.context.interactive ? "denied" : "non-interactive"
      outcome = outcomeFailure(deniedMessage(tool.name, why), `${tool.name}: denied`)
    } else {
      const run = executorCall(tool, input)
      outcome = await execute({ id: call.id, ...run }, { ...env.executor, signal: env.signal })
    }
    let result: ToolResultBlock = { type: "tool_result", toolUseId: call.id, content: outcome.content }
    if (outcome.isError) result.isError = true
    let summary = outcome.summary
    if (env.maxResultChars !== undefined) {
      // Each call gets an equal share of the round's allowance.
      const share = Math.max(MIN_RESULT_CHARS, Math.floor(env.maxResultChars / calls.length))
      const clipped = clipToolResult(result, share, tool?.id ?? call.name)
      if (clipped.removed > 0) {
        result = clipped.block
        summary = `${summary} (cut to fit the context: ${clipped.removed.toLocaleString("en-US")} characters removed)`
      }
    }
    round.results.push(result)
    env.emit({
      type: "tool_result",
      id: call.id,
      name: call.name,
      summary,
      isError: outcome.isError,
      ...(denied ? { denied } : {}),
    })
    if (outcome.control && !round.control) round.control = outcome.control
    await track(outcome, env, round)
  }
  return round
}

async function approved(tool: EnabledTool, input: unknown, env: ToolRunnerEnv): Promise<boolean> {
  if (!env.confirm || !env.context.interactive) return false
  try {
    return await env.confirm(describeCall(tool, input), env.signal)
  } catch {
    return false
  }
}

/** Records touched files and collects the instruction files their paths switch on. */
async function track(outcome: ToolOutcome, env: ToolRunnerEnv, round: ToolRound): Promise<void> {
  const at = env.now()
  for (const t of outcome.touched) {
    try {
      if (t.access === "read") await env.files.recordRead(t.path, at)
      else await env.files.recordWrite(t.path, at)
    } catch {
      // A file that vanished after the call is simply not tracked.
    }
    // Nested instruction files of the path's folders and the conditional rules it switches on, once each.
    const files = env.instructions.instructionsFor(t.path)
    if (files.length > 0) round.notes.push(...renderInstructions(files))
  }
}
