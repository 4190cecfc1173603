import { accessMcpResourceExecutor } from "./access-mcp-resource.js"
import { actModeRespondExecutor } from "./act-mode-respond.js"
import { applyPatchExecutor } from "./apply-patch.js"
import { validateArgs } from "./args.js"
import { askFollowupQuestionExecutor } from "./ask-followup-question.js"
import { attemptCompletionExecutor } from "./attempt-completion.js"
import { executeCommandExecutor } from "./execute-command.js"
import { listCodeDefinitionNamesExecutor } from "./list-code-definition-names.js"
import { listFilesExecutor } from "./list-files.js"
import { newTaskExecutor } from "./new-task.js"
import { failure } from "./outcome.js"
import { planModeRespondExecutor } from "./plan-mode-respond.js"
import { readFileExecutor } from "./read-file.js"
import { replaceInFileExecutor } from "./replace-in-file.js"
import { searchFilesExecutor } from "./search-files.js"
import {
  DEFAULT_EXECUTOR_LIMITS,
  type Executor,
  type ExecutorEnv,
  type ResolvedEnv,
  type ToolCall,
  type ToolOutcome,
} from "./types.js"
import { useMcpToolExecutor } from "./use-mcp-tool.js"
import { useSkillExecutor } from "./use-skill.js"
import { webFetchExecutor } from "./web-fetch.js"
import { webSearchExecutor } from "./web-search.js"
import { writeToFileExecutor } from "./write-to-file.js"

export { DefinitionParser } from "./definitions.js"
export type {
  AskUser,
  ControlSignal,
  Executor,
  ExecutorEnv,
  ExecutorLimits,
  McpCaller,
  McpContent,
  McpResourceContents,
  SearchHit,
  SearchProvider,
  ToolCall,
  ToolOutcome,
  TouchedPath,
} from "./types.js"
export { DEFAULT_EXECUTOR_LIMITS } from "./types.js"

const ALL: readonly Executor[] = [
  readFileExecutor,
  writeToFileExecutor,
  replaceInFileExecutor,
  applyPatchExecutor,
  executeCommandExecutor,
  searchFilesExecutor,
  listFilesExecutor,
  listCodeDefinitionNamesExecutor,
  askFollowupQuestionExecutor,
  attemptCompletionExecutor,
  planModeRespondExecutor,
  actModeRespondExecutor,
  newTaskExecutor,
  useSkillExecutor,
  useMcpToolExecutor,
  accessMcpResourceExecutor,
  webFetchExecutor,
  webSearchExecutor,
]

/** The built-in executors by tool id. browser_action and use_subagents have none: the host provides them. */
export const EXECUTORS: Readonly<Record<string, Executor>> = Object.freeze(
  Object.fromEntries(ALL.map((executor) => [executor.id, executor])),
)

/** Whether a built-in executor exists for the tool id. */
export function hasExecutor(id: string): boolean {
  return Object.hasOwn(EXECUTORS, id)
}

function resolveEnv(env: ExecutorEnv): ResolvedEnv {
  return {
    ...env,
    limits: { ...DEFAULT_EXECUTOR_LIMITS, ...env.limits },
    signal: env.signal ?? new AbortController().signal,
  }
}

/**
 * Runs one tool call: finds the executor by tool id, validates the arguments, runs it. Never throws:
 * an unknown tool, bad arguments, a cancelled call or an unexpected failure each give an error outcome.
 */
export async function execute(call: ToolCall, env: ExecutorEnv): Promise<ToolOutcome> {
  const executor = hasExecutor(call.name) ? EXECUTORS[call.name] : undefined
  if (!executor) {
    return failure(`There is no tool named "${call.name}" in this runtime.`, `${call.name}: unknown tool`)
  }
  const args = validateArgs(call.name, executor.schema, call.input)
  if (!args.ok) return failure(args.message, `${call.name}: invalid arguments`)
  const resolved = resolveEnv(env)
  if (resolved.signal.aborted) return failure("The call was cancelled before it started.", `${call.name}: cancelled`)
  try {
    return await executor.run(args.value, resolved, call)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return failure(`${call.name} failed unexpectedly: ${message}`, `${call.name}: failed`)
  }
}
