import type { ToolSpec } from "../spec.js"
import { accessMcpResource } from "./access-mcp-resource.js"
import { actModeRespond } from "./act-mode-respond.js"
import { applyPatch } from "./apply-patch.js"
import { askFollowupQuestion } from "./ask-followup-question.js"
import { attemptCompletion } from "./attempt-completion.js"
import { browserAction } from "./browser-action.js"
import { executeCommand } from "./execute-command.js"
import { listCodeDefinitionNames } from "./list-code-definition-names.js"
import { listFiles } from "./list-files.js"
import { newTask } from "./new-task.js"
import { planModeRespond } from "./plan-mode-respond.js"
import { readFile } from "./read-file.js"
import { replaceInFile } from "./replace-in-file.js"
import { searchFiles } from "./search-files.js"
import { useMcpTool } from "./use-mcp-tool.js"
import { useSkill } from "./use-skill.js"
import { useSubagents } from "./use-subagents.js"
import { webFetch } from "./web-fetch.js"
import { webSearch } from "./web-search.js"
import { writeToFile } from "./write-to-file.js"

export { taskProgressOn, taskProgressParameter } from "./task-progress.js"

/**
 * Every built-in tool spec, in the stable order tools are shown in: work on files and commands first
 * (execute, read, write, edit, search, list, definitions), then the outside world (browser, web, MCP),
 * then talking to the user and ending (ask, complete, new task, plan/act replies), then skills and subagents.
 * replace_in_file comes before apply_patch, so a variant that offers both edit tools gets replace_in_file.
 */
export const BUILTIN_TOOLS: readonly ToolSpec[] = Object.freeze([
  executeCommand,
  readFile,
  writeToFile,
  replaceInFile,
  applyPatch,
  searchFiles,
  listFiles,
  listCodeDefinitionNames,
  browserAction,
  webFetch,
  webSearch,
  useMcpTool,
  accessMcpResource,
  askFollowupQuestion,
  attemptCompletion,
  newTask,
  planModeRespond,
  actModeRespond,
  useSkill,
  useSubagents,
])

/** The ids of the built-in tools, in catalog order. */
export const BUILTIN_TOOL_IDS: readonly string[] = Object.freeze(BUILTIN_TOOLS.map((tool) => tool.id))
