// The action of `promptline serve`, loaded only when the command runs (see serve.ts for its flags).
import { resolve } from "node:path"
import type { RouteConfig } from "../config/gateway.js"
import { routeLinks } from "../config/gateway-routes.js"
import { formatDiagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { logField, logJson, logLine } from "../gateway/log.js"
import { startGateway } from "../gateway/server.js"
import { STATUS_PATH } from "../gateway/status-route.js"
import type { GatewayTracing } from "../gateway/traces.js"
import { PriceList } from "../models/cost.js"
import { watchConfigFiles } from "./config-watch.js"
import { gatewayRunConfig, traceHooks } from "./gateway-config.js"
import type { CliIO } from "./io.js"
import type { ServeFlags } from "./serve.js"

/** The settings each well-known client reads its base URL from, per client API. */
function clientLines(urls: {
  anthropic: string
  openai: string
  gemini: string
  responsesWebSocket: string
}): [string, string, string][] {
  return [
    ["Anthropic API", `ANTHROPIC_BASE_URL=${urls.anthropic}`, "Claude Code, Anthropic SDKs (baseURL)"],
    ["OpenAI API", `OPENAI_BASE_URL=${urls.openai}`, "Codex CLI, OpenAI SDKs (baseURL): Chat and Responses"],
    ["Gemini API", `GOOGLE_GEMINI_BASE_URL=${urls.gemini}`, "Gemini CLI; @google/genai httpOptions.baseUrl"],
    ["Responses WS", urls.responsesWebSocket, "the Responses API's WebSocket mode"],
  ]
}

/** A route as the start line shows it: its match, then each upstream it tries in order (`a/model → b`). */
function routeText(route: RouteConfig): string {
  const links = routeLinks(route).map((l) => {
    const model = l.model ?? route.model
    return `${l.upstream}${model ? `/${model}` : ""}`
  })
  return `${route.match} → ${links.join(" | ")}`
}

/** Runs the gateway until SIGTERM or SIGINT; returns the exit code. */
export async function serveAction(flags: ServeFlags, io: CliIO): Promise<number> {
  let port: number | undefined
  if (flags.port !== undefined) {
    port = Number(flags.port)
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new PromptlineError(
        "invalid-option",
        `--port must be a whole number from 0 to 65535 (got ${JSON.stringify(flags.port)})`,
      )
  }
  const { gateway: config, models, traces, files, diagnostics } = await gatewayRunConfig(flags.config, io)
  for (const d of diagnostics) if (d.level !== "info") io.stderr(`${formatDiagnostic(d)}\n`)
  const traceDir = flags.trace !== undefined ? resolve(io.cwd, flags.trace) : traces?.dir
  const tracing: GatewayTracing | undefined =
    traceDir !== undefined
      ? await traceHooks(traceDir, { models, ...(traces ? { traces } : {}) }, (line) => io.stderr(`${line}\n`))
      : undefined
  // Each log line's cost: the user's model rows first, then the catalog, each model id looked up once.
  const prices = new PriceList(models)
  // The log lines of the requests that end in one turn of the event loop leave in one write, after that turn's
  // answers: under load, one write per turn instead of one per request (a pipe's write blocks the process).
  let logged: string[] = []
  const writeLog = () => {
    if (logged.length === 0) return
    const lines = logged
    logged = []
    io.stdout(lines.join(""))
  }
  const log = (line: string) => {
    if (logged.push(`${line}\n`) === 1) setImmediate(writeLog)
  }
  const gateway = await startGateway({
    ...(config ? { config } : {}),
    env: io.env,
    models,
    ...(flags.host !== undefined ? { host: flags.host } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(io.now ? { clock: io.now } : {}),
    onRequest: (record) => {
      log(flags.json ? logJson(record, prices) : logLine(record, prices))
      void tracing?.onRequest(record)
    },
    ...(tracing ? { answerHeaders: tracing.answerHeaders } : {}),
    // A failure no answer could carry (a hook that threw, a socket it could not serve): one line, and serving goes on.
    onError: (error, where) => {
      if (flags.json) log(JSON.stringify({ event: "error", where, message: error.message }))
      else {
        const code = error instanceof PromptlineError ? error.code : "gateway-internal"
        io.stderr(`error while serving (${where}): ${logField(error.message, 1000)} [${code}]\n`)
      }
    },
  })
  const routes = config?.routes ?? []
  if (flags.json) {
    io.stdout(
      `${JSON.stringify({ event: "listening", url: gateway.url, urls: gateway.urls, status: `${gateway.url}${STATUS_PATH}`, configFiles: files, routes: routes.length, store: gateway.stateStore.where })}\n`,
    )
  } else {
    io.stdout(`promptline gateway on ${gateway.url}\n`)
    io.stdout(
      `  ${"config".padEnd(14)}${files.length === 0 ? "none (defaults)" : files.map((f) => `${f.file} (${f.role})`).join(", ")}\n`,
    )
    const store = gateway.stateStore
    io.stdout(
      `  ${"state".padEnd(14)}${store.kind === "redis" ? `${store.where} (shared with other instances)` : "memory (this instance only)"}\n`,
    )
    for (const [api, setting, who] of clientLines(gateway.urls))
      io.stdout(`  ${api.padEnd(14)}${setting.padEnd(50)}${who}\n`)
    const status = `${gateway.url}${STATUS_PATH}`
    io.stdout(
      `  ${"status".padEnd(14)}${status.padEnd(50)}${gateway.settings.token ? "with the gateway's token (?key=TOKEN in a browser)" : "requests, cost, upstream health; this machine only"}\n`,
    )
    io.stdout(
      routes.length === 0
        ? "  no routes: each request goes to its own provider with the key the client sent\n"
        : `  ${routes.length} route${routes.length === 1 ? "" : "s"}: ${routes.map(routeText).join(", ")}\n`,
    )
  }
  // A valid change of the config files is swapped in between requests; an invalid one is refused and named.
  const watch = watchConfigFiles(
    files.map((f) => f.file),
    async () => {
      let note: { event: string; message: string }
      try {
        const next = await gatewayRunConfig(flags.config, io)
        // Named as at the start; a config that parses and validates serves as it says.
        for (const d of next.diagnostics) if (d.level !== "info") io.stderr(`${formatDiagnostic(d)}\n`)
        const { kept } = gateway.reload({ ...(next.gateway ? { config: next.gateway } : {}), models: next.models })
        const routes = next.gateway?.routes ?? []
        note = {
          event: "config-reloaded",
          message: `config reloaded: ${routes.length} route${routes.length === 1 ? "" : "s"}${kept.length > 0 ? `; ${kept.join(", ")} changed, but ${kept.length === 1 ? "keeps its" : "keep their"} value until a restart` : ""}`,
        }
      } catch (error) {
        note = {
          event: "config-refused",
          message: `config change refused, the previous config stays in force: ${(error as Error).message}`,
        }
      }
      // In the request log's order: after the lines of the requests that ended before it.
      if (flags.json) log(JSON.stringify(note))
      else io.stderr(`${logField(note.message, 2000)}\n`)
    },
  )
  await new Promise<void>((done) => {
    const stop = () => {
      process.off("SIGTERM", stop)
      process.off("SIGINT", stop)
      done()
    }
    process.on("SIGTERM", stop)
    process.on("SIGINT", stop)
  })
  writeLog()
  if (!flags.json)
    io.stdout(
      `stopping: letting ${gateway.active} running answer(s) finish (at most ${gateway.settings.shutdownGraceMs} ms)\n`,
    )
  watch.close()
  await gateway.close()
  writeLog()
  return 0
}
