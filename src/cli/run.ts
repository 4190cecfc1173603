import { cp, mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { Command, Option } from "commander"
import type { ApprovalPolicy } from "../agent/approval.js"
import type { AgentEvent } from "../agent/events.js"
import { Agent, type SendRequest } from "../agent/loop.js"
import { McpPool } from "../agent/mcp-pool.js"
import { newSessionId, Session } from "../agent/session.js"
import { endpointFor } from "../agent/transport/endpoints.js"
import { send } from "../agent/transport/http.js"
import type { RetryInfo } from "../agent/transport/retry.js"
import { ResponsesSocket } from "../agent/transport/websocket.js"
import { PromptlineError } from "../errors.js"
import { ContextManager } from "../history/context-manager.js"
import { FileTracker } from "../history/file-tracker.js"
import type { WireFormat } from "../models/types.js"
import { WIRE_FORMATS } from "../models/types.js"
import { PromptBuilder } from "../prompt/builder.js"
import { loadReplayScript, scriptWorkspace } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { type ContextFlags, contextFrom, contextOptions } from "./context-source.js"
import type { CliIO } from "./io.js"
import type { CommandFactory } from "./main.js"
import { RunRenderer } from "./run-render.js"

interface RunFlags extends ContextFlags {
  baseUrl?: string
  websocket?: boolean
  format?: WireFormat
  replay?: string
  approve?: ApprovalPolicy
  maxTurns: string
  json?: boolean
  resume?: string
  plan?: boolean
  auto?: boolean
}

/** Where the replay server's clients connect, by wire format. */
function replayBase(server: ReplayServer, format: WireFormat): string {
  return format === "anthropic" ? server.urls.anthropic : format === "gemini" ? server.urls.gemini : server.urls.openai
}

/** Copies the replay script's sample workspace into a fresh temporary folder (the task edits it). */
async function replayWorkspace(file: string): Promise<{ cwd: string; task: string; server: ReplayServer }> {
  const script = await loadReplayScript(file)
  const source = scriptWorkspace(script, file)
  if (!source) throw new PromptlineError("replay-no-workspace", `${file}: the script names no workspace folder`)
  const cwd = join(await mkdtemp(join(tmpdir(), "promptline-replay-")), basename(source))
  await cp(source, cwd, { recursive: true })
  const server = await startReplayServer({ script })
  return { cwd, task: script.task ?? "", server }
}

/** `promptline run`: the reference agent. */
export const runCommand: CommandFactory = (io, setExit) => {
  const command = new Command("run")
    .description("run the reference agent on a task (against a provider, or a local replay script)")
    .argument("[task...]", "what to do (default: the replay script's task)")
  for (const option of contextOptions()) command.addOption(option)
  command
    .option("--base-url <url>", "the provider's base URL (OpenAI-compatible servers, proxies)")
    .addOption(new Option("--format <wire>", "the wire format to speak").choices([...WIRE_FORMATS]))
    .option("--websocket", "OpenAI Responses over one WebSocket kept open across turns")
    .option("--replay <script>", "answer from a replay script on a local server, in a copy of its sample workspace")
    .addOption(new Option("--approve <policy>", "which tool calls run without asking").choices(["ask", "reads", "all"]))
    .option("--max-turns <n>", "stop after this many model turns", "40")
    .option("--json", "print events as JSON lines")
    .option("--resume <id>", "continue an interrupted session")
    .option("--plan", "start in plan mode")
    .option("--auto", "run without asking the user anything (autonomy auto)")
    .action(async (words: string[], flags: RunFlags) => {
      setExit(await run(words.join(" ").trim(), flags, io))
    })
  return command
}

async function run(taskArg: string, flags: RunFlags, io: CliIO): Promise<number> {
  const now = io.now ?? Date.now
  let replay: Awaited<ReturnType<typeof replayWorkspace>> | undefined
  if (flags.replay) replay = await replayWorkspace(flags.replay)
  const cwd = replay?.cwd ?? flags.cwd ?? io.cwd
  let socket: ResponsesSocket | undefined
  let mcp: McpPool | undefined
  try {
    const interactive = io.question !== undefined && !flags.json && !flags.auto
    const gathered = await contextFrom({ ...flags, cwd }, io)
    mcp = new McpPool(gathered.mcpConfigs ?? [], gathered.context.cwd)
    // A context file names MCP servers but not how to reach them: offering their tools would only fail.
    if (!gathered.mcpConfigs && gathered.context.mcpServers.length > 0) {
      io.stderr("note: the context file's MCP servers are not offered (run without --context to connect to them)\n")
      gathered.context = { ...gathered.context, mcpServers: [] }
    }
    const context = {
      ...gathered.context,
      interactive,
      ...(flags.auto ? { autonomy: "auto" as const } : {}),
      ...(flags.plan ? { mode: "plan" as const } : {}),
    }
    const builder = new PromptBuilder()
    const built = builder.build(context)
    const format = flags.format ?? built.wireFormat
    const endpoint = endpointFor({
      provider: context.model.provider,
      format,
      env: io.env,
      ...(replay ? { baseUrl: replayBase(replay.server, format), apiKey: "replay" } : {}),
      ...(flags.baseUrl ? { baseUrl: flags.baseUrl } : {}),
    })
    if (flags.websocket && format !== "openai-responses")
      throw new PromptlineError("websocket-format", "--websocket needs the openai-responses wire format")
    socket = flags.websocket
      ? new ResponsesSocket(endpoint, {
          now,
          ...(replay ? { url: replay.server.urls.responsesWebSocket } : {}),
        })
      : undefined
    const live = socket
    const sendRequest: SendRequest = (r) => {
      const onRetry = (info: RetryInfo) => r.onRetry(info.attempt, info.delayMs, info.error)
      if (live) return live.send(r.body, { signal: r.signal, onRetry })
      return send(endpoint, { format: r.format, body: r.body, model: r.model.id, signal: r.signal, onRetry, now })
    }

    const manager = await ContextManager.create()
    let session: Session
    let history: Awaited<ReturnType<typeof Session.resume>>["history"] = []
    let files = new FileTracker(context.cwd)
    if (flags.resume) {
      const resumed = await Session.resume(context.cwd, flags.resume)
      session = resumed.session
      history = resumed.history
      manager.changeLog.add(resumed.changeLog.edits)
      files = new FileTracker(context.cwd, resumed.files)
      for (const d of resumed.diagnostics) io.stderr(`${d.level}: ${d.message}\n`)
    } else {
      const task = taskArg || replay?.task
      if (!task) throw new PromptlineError("no-task", 'give a task: promptline run "what to do" (or --replay SCRIPT)')
      session = await Session.create(context.cwd, {
        id: newSessionId(now()),
        created: now(),
        cwd: context.cwd,
        model: context.model.id,
        provider: context.model.provider,
        task,
      })
    }

    const renderer = new RunRenderer(io.stdout)
    const onEvent = (e: AgentEvent) => (flags.json ? io.stdout(`${JSON.stringify(e)}\n`) : renderer.render(e))
    if (replay && !flags.json) io.stdout(`replay: working in ${cwd}\n`)
    const controller = new AbortController()
    const onSigint = () => {
      if (controller.signal.aborted) process.exit(130)
      controller.abort(new Error("interrupted"))
    }
    process.on("SIGINT", onSigint)
    const question = io.question
    const approve: ApprovalPolicy = flags.approve ?? (replay ? "all" : interactive ? "ask" : "reads")
    const agent = new Agent({
      context,
      builder,
      manager,
      send: sendRequest,
      session,
      history,
      files,
      format,
      approve,
      ...(question && interactive
        ? {
            confirm: async (summary: string, signal: AbortSignal) =>
              /^y(es)?$/i.test((await question(`run ${summary}? [y/N] `, signal)).trim()),
            ask: async (q: string, options: string[] | undefined, signal: AbortSignal) =>
              question(
                `${q}${options?.length ? `\n${options.map((o, i) => `  ${i + 1}. ${o}`).join("\n")}\n` : ""}\n> `,
                signal,
              ),
          }
        : {}),
      maxTurns: Number.parseInt(flags.maxTurns, 10) || 40,
      now,
      today: io.today,
      executor: { processEnv: io.env, mcp },
      onEvent,
      signal: controller.signal,
    })
    let result: Awaited<ReturnType<Agent["run"]>>
    try {
      result = await agent.run(flags.resume ? taskArg || undefined : undefined)
    } finally {
      process.off("SIGINT", onSigint)
    }
    if (result.reason === "aborted" && !flags.json)
      io.stderr(`session saved: resume with  promptline run --resume ${session.id} --cwd ${context.cwd}\n`)
    if (replay) {
      try {
        replay.server.assertComplete()
      } catch (error) {
        io.stderr(`replay: ${(error as Error).message}\n`)
        return 1
      }
    }
    return result.reason === "completed" || result.reason === "answered" ? 0 : 1
  } finally {
    await socket?.close()
    await mcp?.close()
    await replay?.server.close()
  }
}
