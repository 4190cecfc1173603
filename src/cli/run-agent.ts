// The action of `promptline run`, loaded only when the command runs (see run.ts for its flags).
import { cp, mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, join, resolve } from "node:path"
import type { ApprovalPolicy } from "../agent/approval.js"
import type { AgentEvent } from "../agent/events.js"
import { Agent, PROVIDER_COMPACTION_FORMATS, type SendRequest } from "../agent/loop.js"
import { McpPool } from "../agent/mcp-pool.js"
import { newSessionId, Session } from "../agent/session.js"
import { compactResponses } from "../agent/transport/compact.js"
import { sendTo } from "../agent/transport/http.js"
import type { RetryInfo } from "../agent/transport/retry.js"
import { ResponsesSocket } from "../agent/transport/websocket.js"
import { formatDiagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { budgetFor } from "../history/budget.js"
import { ContextManager } from "../history/context-manager.js"
import { FileTracker } from "../history/file-tracker.js"
import { COMPACTION_DEFAULTS } from "../history/staged.js"
import type { WireFormat } from "../models/types.js"
import { PromptBuilder } from "../prompt/builder.js"
import { clientApiBase } from "../providers/api-paths.js"
import { endpointFor } from "../providers/endpoints.js"
import { credentialsOf } from "../redact.js"
import { loadReplayScript, scriptWorkspace } from "../replay/script.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { homeOf } from "./context-options.js"
import { contextFrom } from "./context-source.js"
import type { CliIO } from "./io.js"
import { projectServerRefusal } from "./project-endpoint.js"
import type { RunFlags } from "./run.js"
import { RunRenderer } from "./run-render.js"

/** Where the replay server's clients connect, by wire format (OpenAI's under `/v1`). */
function replayBase(server: ReplayServer, format: WireFormat): string {
  return `${server.url}${clientApiBase(format)}`
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

/** A positive whole number from a flag's text, or an invalid-option error naming the flag. */
function positiveInteger(flag: string, value: string): number {
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isSafeInteger(n) || n < 1)
    throw new PromptlineError("invalid-option", `${flag} must be a positive integer (got ${JSON.stringify(value)})`)
  return n
}

/** A share between 0 (exclusive) and 1 from a flag's text (default: staged compaction's), or an invalid-option error. */
function fraction(flag: string, value: string | undefined): number {
  if (value === undefined) return COMPACTION_DEFAULTS.threshold
  const n = Number(value)
  if (!(n > 0 && n <= 1))
    throw new PromptlineError(
      "invalid-option",
      `${flag} must be a number above 0 and at most 1 (got ${JSON.stringify(value)})`,
    )
  return n
}

/** Runs the agent for `promptline run`; returns the exit code. */
export async function runAgent(taskArg: string, flags: RunFlags, io: CliIO): Promise<number> {
  const now = io.now ?? Date.now
  const maxTurns = positiveInteger("--max-turns", flags.maxTurns)
  fraction("--compact-at", flags.compactAt)
  let replay: Awaited<ReturnType<typeof replayWorkspace>> | undefined
  if (flags.replay) replay = await replayWorkspace(flags.replay)
  const cwd = replay?.cwd ?? flags.cwd ?? io.cwd
  let socket: ResponsesSocket | undefined
  let mcp: McpPool | undefined
  try {
    const interactive = io.question !== undefined && !flags.json && !flags.auto
    // A resumed session goes on with the model it was started with, unless --model says otherwise.
    // Sessions are kept in the user's state folder, by workspace (never in the workspace itself).
    const place = { home: homeOf(io), env: io.env }
    const resumed = flags.resume ? await Session.resume(resolve(io.cwd, cwd), flags.resume, place) : undefined
    const started = resumed?.session.meta
    const modelFlags =
      started && !flags.model ? { model: started.model, provider: flags.provider ?? started.provider } : {}
    const gathered = await contextFrom({ ...flags, ...modelFlags, cwd }, io)
    // What the config files could not set (a project's trace settings, trust) is said before anything runs.
    for (const d of gathered.diagnostics)
      if (d.level === "warning" && d.code.startsWith("config-")) io.stderr(`${formatDiagnostic(d)}\n`)
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
    const builder = new PromptBuilder({ models: gathered.config.models })
    const built = builder.build(context)
    const format = flags.format ?? built.wireFormat
    const refused =
      replay || flags.baseUrl ? undefined : projectServerRefusal(gathered.providerChosenBy, context.model.provider)
    if (refused) throw new PromptlineError("config-provider-untrusted", refused)
    const endpoint = endpointFor({
      provider: context.model.provider,
      format,
      env: io.env,
      ...(replay ? { baseUrl: replayBase(replay.server, format), apiKey: "replay" } : {}),
      ...(flags.baseUrl !== undefined ? { baseUrl: flags.baseUrl } : {}),
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
    let sendRequest: SendRequest = live
      ? (r) =>
          live.send(r.body, {
            signal: r.signal,
            onRetry: (info: RetryInfo) => r.onRetry(info.attempt, info.delayMs, info.error),
          })
      : sendTo(endpoint, { now })

    const threshold = fraction("--compact-at", flags.compactAt)
    // Provider-side compaction where the format has it; staged compaction everywhere else.
    const providerSide = flags.compaction === "provider" && PROVIDER_COMPACTION_FORMATS.includes(format)
    const manager = await ContextManager.create({
      models: gathered.config.models,
      // A resumed session's calibration of the estimate goes on from where it was.
      ...(started?.calibration ? { calibrations: started.calibration } : {}),
      ...(flags.compaction === "truncate" || providerSide ? {} : { compaction: { threshold } }),
    })
    let session: Session
    let history: Awaited<ReturnType<typeof Session.resume>>["history"] = []
    let files = new FileTracker(context.cwd)
    if (resumed) {
      session = resumed.session
      const { id: model, provider } = context.model
      if (model !== session.meta.model || provider !== session.meta.provider) {
        io.stderr(
          `note: session ${session.id} was started with ${session.meta.model} (${session.meta.provider}); continuing with ${model} (${provider}) as --model asks\n`,
        )
        await session.update({ model, provider })
      }
      history = resumed.history
      manager.changeLog.add(resumed.changeLog.edits)
      files = new FileTracker(context.cwd, resumed.files)
      for (const d of resumed.diagnostics)
        if (d.level !== "info" || d.code === "session-moved") io.stderr(`${formatDiagnostic(d)}\n`)
    } else {
      const task = taskArg || replay?.task
      if (!task) throw new PromptlineError("no-task", 'give a task: promptline run "what to do" (or --replay SCRIPT)')
      session = await Session.create(
        context.cwd,
        {
          id: newSessionId(now()),
          created: now(),
          cwd: context.cwd,
          model: context.model.id,
          provider: context.model.provider,
          task,
        },
        place,
      )
    }

    const renderer = new RunRenderer(io.stdout, { simulated: replay !== undefined })
    const onEvent = (e: AgentEvent) => (flags.json ? io.stdout(`${JSON.stringify(e)}\n`) : renderer.render(e))
    let traceFailed = false
    if (flags.trace) {
      const { tracingSend, traceLine } = await import("./run-trace.js")
      const { TraceStore } = await import("../cache/trace-store.js")
      const store = new TraceStore(resolve(io.cwd, flags.trace), {
        counter: manager.counter,
        models: gathered.config.models,
        ...(gathered.config.traces ? { retention: gathered.config.traces } : {}),
      })
      const target = {
        provider: endpoint.provider,
        baseUrl: endpoint.baseUrl,
        session: session.id,
        secrets: credentialsOf(endpoint.headers),
      }
      sendRequest = tracingSend(
        sendRequest,
        store,
        target,
        now,
        (record) =>
          flags.json
            ? io.stdout(
                `${JSON.stringify({ type: "cache", request: record.index, conversation: record.conversation, verdict: record.verdict })}\n`,
              )
            : renderer.status(traceLine(record)),
        (error) => {
          if (!traceFailed) {
            // The warning goes to stderr, which shares the terminal with the streamed text: end its line first.
            renderer.endLine()
            io.stderr(`warning cannot write the trace in ${flags.trace}: ${error.message} [trace-unwritable]\n`)
          }
          traceFailed = true
        },
      )
    }
    if (replay && !flags.json) io.stdout(`replay: working in a copy of the script's workspace: ${cwd}\n`)
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
      // OpenAI routes requests with the same prompt_cache_key to the same cache: one key per session.
      encode: { cache: { sessionId: session.id } },
      ...(flags.compaction === "provider"
        ? {
            providerCompaction: { trigger: Math.floor(budgetFor(built.model).effective * threshold) },
            compact: (body: Record<string, unknown>, signal: AbortSignal) =>
              compactResponses(endpoint, { body, provider: context.model.provider, signal }),
          }
        : {}),
      approve,
      ...(question && interactive
        ? {
            // Questions are asked on stderr: a line the streamed text left open is ended first.
            confirm: async (summary: string, signal: AbortSignal) => {
              renderer.endLine()
              return /^y(es)?$/i.test((await question(`run ${summary}? [y/N] `, signal)).trim())
            },
            ask: async (q: string, options: string[] | undefined, signal: AbortSignal) => {
              renderer.endLine()
              return question(
                `${q}${options?.length ? `\n${options.map((o, i) => `  ${i + 1}. ${o}`).join("\n")}\n` : ""}\n> `,
                signal,
              )
            },
          }
        : {}),
      maxTurns,
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
      // Whatever is printed after the run (an error, where the session is saved) starts a line of its own.
      if (!flags.json) renderer.endLine()
    }
    if (result.reason === "aborted" && !flags.json)
      io.stderr(`session saved: resume with  promptline run --resume ${session.id} --cwd ${context.cwd}\n`)
    if (replay) {
      if (!flags.json) io.stdout(`replay: the copy stays in ${cwd} for you to look at; delete it when done\n`)
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
