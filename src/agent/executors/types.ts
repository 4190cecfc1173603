import type { z } from "zod"
import type { SkillInfo } from "../../context/prompt-context.js"
import type { ImageBlock, TextBlock } from "../../history/message.js"
import type { DefinitionParser } from "./definitions.js"

/** A tool call as the model made it, with the tool id already mapped back from any rename. */
export interface ToolCall {
  id: string
  /** The built-in tool id, e.g. `read_file`. */
  name: string
  input: unknown
}

/** A path a tool read or wrote: workspace-relative POSIX when inside the workspace, absolute otherwise. */
export interface TouchedPath {
  path: string
  access: "read" | "write"
}

/** What a control tool asks the loop to do; the executor only reports it. */
export type ControlSignal =
  | { type: "completion"; result: string; command?: string }
  | { type: "plan_response"; response: string; needsMoreExploration: boolean }
  | { type: "act_response"; response: string }
  | { type: "new_task"; context: string }

/** The result of one tool call, ready to become a tool_result block. */
export interface ToolOutcome {
  content: string | (TextBlock | ImageBlock)[]
  isError: boolean
  /** One line for the user, e.g. `read src/a.ts (120 lines)`. */
  summary: string
  /** Paths the call read or wrote, for conditional rules and the file tracker. */
  touched: TouchedPath[]
  /** Set by attempt_completion, plan_mode_respond, act_mode_respond and new_task. */
  control?: ControlSignal
  /** Tool-specific facts for callers and tests (exit code, search engine, counts). */
  details?: Record<string, unknown>
}

/** Size and time limits of the executors; every field has a default (DEFAULT_EXECUTOR_LIMITS). */
export interface ExecutorLimits {
  /** read_file: most bytes of text returned in one call. */
  readMaxBytes: number
  /** read_file: most lines returned when no range is given. */
  readMaxLines: number
  /** read_file: largest image returned as an image block. */
  imageMaxBytes: number
  /** execute_command: timeout when the call gives none. */
  commandTimeoutMs: number
  /** execute_command: the largest timeout a call may ask for. */
  commandMaxTimeoutMs: number
  /** execute_command: bytes of output kept (half from the head, half from the tail). */
  commandOutputBytes: number
  /** execute_command: how long to wait after a timeout's SIGTERM before SIGKILL. */
  killGraceMs: number
  /** search_files: most matches reported. */
  searchMaxResults: number
  /** list_files: most entries reported. */
  listMaxEntries: number
  /** list_code_definition_names: most source files parsed. */
  definitionsMaxFiles: number
  /** web_fetch: most characters of page text returned. */
  fetchMaxChars: number
  /** web_fetch: timeout of the request. */
  fetchTimeoutMs: number
  /** use_mcp_tool / access_mcp_resource: most characters of text returned. */
  mcpMaxChars: number
}

/** The limits used when ExecutorEnv.limits leaves a field out. */
export const DEFAULT_EXECUTOR_LIMITS: Readonly<ExecutorLimits> = Object.freeze({
  readMaxBytes: 256 * 1024,
  readMaxLines: 2000,
  imageMaxBytes: 5 * 1024 * 1024,
  commandTimeoutMs: 120_000,
  commandMaxTimeoutMs: 600_000,
  commandOutputBytes: 32 * 1024,
  killGraceMs: 2000,
  searchMaxResults: 300,
  listMaxEntries: 200,
  definitionsMaxFiles: 50,
  fetchMaxChars: 100_000,
  fetchTimeoutMs: 30_000,
  mcpMaxChars: 100_000,
})

/** Asks the person at the terminal a question; resolves with their answer. */
export type AskUser = (question: string, options: string[] | undefined, signal: AbortSignal) => Promise<string>

/** One piece of MCP content, in the shape the MCP SDK returns. */
export type McpContent =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | { type: "resource"; resource: McpResourceContents }
  | { type: "resource_link"; uri: string; name?: string; description?: string; mimeType?: string }

/** The contents of one MCP resource: text or base64 `blob`. */
export interface McpResourceContents {
  uri: string
  mimeType?: string
  text?: string
  blob?: string
}

/** Calls tools and reads resources of connected MCP servers (the live client lives in src/context/mcp/). */
export interface McpCaller {
  callTool(
    server: string,
    tool: string,
    args: Record<string, unknown>,
    options: { signal: AbortSignal },
  ): Promise<{ content: McpContent[]; isError?: boolean; structuredContent?: unknown }>
  readResource(
    server: string,
    uri: string,
    options: { signal: AbortSignal },
  ): Promise<{ contents: McpResourceContents[] }>
}

/** One web search hit. */
export interface SearchHit {
  title: string
  url: string
  snippet?: string
}

/** A web search backend supplied by the host. */
export interface SearchProvider {
  search(
    query: { query: string; allowedDomains?: string[]; blockedDomains?: string[] },
    options: { signal: AbortSignal },
  ): Promise<SearchHit[]>
}

/** Everything an executor may use: the workspace, limits, and the host's callbacks. */
export interface ExecutorEnv {
  /** The workspace root; relative paths resolve against it and writes stay inside it. */
  workspace: string
  /** Extra folders tools may read and write. */
  allowedRoots?: string[]
  /** Extra folders tools may read but not write. */
  readRoots?: string[]
  /** Cancels the call: commands are killed, requests aborted. */
  signal?: AbortSignal
  limits?: Partial<ExecutorLimits>
  /** False when no person can answer questions; defaults to true when `ask` is given. */
  interactive?: boolean
  ask?: AskUser
  mcp?: McpCaller
  search?: SearchProvider
  /** The context's skills, for use_skill. */
  skills?: SkillInfo[]
  /** Home folder for `~/` paths (skills); defaults to the OS home. */
  home?: string
  /** Shell for execute_command; defaults to $SHELL (or /bin/sh), cmd.exe on Windows. */
  shell?: string
  /** Environment of commands and of the ripgrep lookup; defaults to process.env. Secrets are removed for commands. */
  processEnv?: Record<string, string | undefined>
  /** Variables commands never inherit, besides every provider's key variables and names ending in `_API_KEY`, `_TOKEN`, `_SECRET`, ... */
  secretEnv?: readonly string[]
  /** Variables commands inherit although they look secret (e.g. `GH_TOKEN` for `gh`). */
  keepEnv?: readonly string[]
  /** Path of `rg`, or false to force the JavaScript search; default: `rg` found on PATH. */
  ripgrep?: string | false
  /** fetch implementation for web_fetch; defaults to the global fetch. */
  fetch?: typeof fetch
  /** read_file prefixes each line with its number when true. */
  readLineNumbers?: boolean
  /** read_file returns images as image blocks (default true). */
  images?: boolean
  /** A loaded parser, reused across calls; one is created per call when absent. */
  definitions?: DefinitionParser
}

/** The env with limits filled and a signal always present, as executors receive it. */
export interface ResolvedEnv extends Omit<ExecutorEnv, "limits" | "signal"> {
  limits: ExecutorLimits
  signal: AbortSignal
}

/** One tool's executor: its argument schema and the function that runs a validated call. */
export interface Executor<S extends z.ZodType = z.ZodType> {
  id: string
  schema: S
  run(input: z.output<S>, env: ResolvedEnv, call: ToolCall): Promise<ToolOutcome>
}

/** Declares an executor (identity function that ties the run input to the schema). */
export function defineExecutor<S extends z.ZodType>(executor: Executor<S>): Executor<S> {
  return executor
}
