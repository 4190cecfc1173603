/**
 * The gateway's HTTP server: each provider's own API in (Anthropic Messages, OpenAI Chat and Responses,
 * Gemini), routed to an upstream in the same format (bytes unchanged) or translated. Every request runs the same
 * way, top to bottom: it arrives, is decided once (decide.ts: route, mode, target, conversation), runs its
 * transport's pipeline (pass-through.ts, translate.ts, count.ts, models-list.ts; the WebSocket's in
 * websocket.ts), and ends in one outcome that one builder makes its record of (record.ts), for the hook, the log
 * and an OpenTelemetry span. Between requests the gateway keeps the change logs of fitted conversations (by
 * conversation key) and usage counters in its state store (memory, or Redis shared with other instances), and the
 * token counter; a translated Responses WebSocket keeps its last response while it is open.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { UsageTotals } from "../cache/usage.js"
import type { GatewayConfig } from "../config/gateway.js"
import { TokenCounter } from "../history/tokens.js"
import type { ModelInfo } from "../models/types.js"
import { CircuitBreaker } from "./breaker.js"
import { ConversationChangeLogs } from "./change-logs.js"
import { countTranslated } from "./count.js"
import { arrive, type Decision, decide, type Refusal } from "./decide.js"
import { fallBack } from "./fallback.js"
import { listen, serverOptions } from "./listen.js"
import { answerModelList } from "./models-list.js"
import { NOTHING_LEARNED, outcomeOf, type PipelineResult } from "./outcome.js"
import { passThrough } from "./pass-through.js"
import { type GatewayRecord, recordOf } from "./record.js"
import { HttpReply } from "./reply.js"
import { type RequestContext, requestTarget } from "./request.js"
import type { GatewayShared, ServingConfig } from "./serving.js"
import { type GatewaySettings, resolveSettings } from "./settings.js"
import { addRecordUsage, openStateStore, type StateStore } from "./state-store.js"
import { GatewayStatus, type GatewayStatusSnapshot } from "./status.js"
import { isStatusPath, serveStatus } from "./status-route.js"
import { emitSpan } from "./telemetry.js"
import { translate } from "./translate.js"
import { attachGatewaySocket } from "./websocket.js"

/** Options of a gateway. */
export interface GatewayOptions {
  /** The config's `gateway` section; absent: every request goes to its own provider with the client's key. */
  config?: GatewayConfig
  /** Where key and token variables are read (pass `process.env`). */
  env: Readonly<Record<string, string | undefined>>
  /** Override the config's host and port. */
  host?: string
  port?: number
  /** User model rows (limits of upstream models the catalog does not know). */
  models?: readonly ModelInfo[]
  /** Hears of every finished request. */
  onRequest?: (record: GatewayRecord) => void
  /**
   * Extra headers for a successful answer (the cache explainer's `x-promptline-cache`), asked just before the
   * answer's headers go out, with the record as known then (no usage, status or latency yet).
   */
  answerHeaders?: (
    early: GatewayRecord,
  ) => Record<string, string> | undefined | Promise<Record<string, string> | undefined>
  /** Milliseconds since the epoch, for record times and latency (default Date.now). */
  clock?: () => number
  /**
   * Hears of a failure no answer could report: a hook that threw, a socket or frame the gateway could not serve,
   * the shared state store failing (`gateway-state-degraded`, once per outage). The gateway goes on; `where` names
   * the step (`request`, `upgrade`, `websocket`, `record`, `status`, `server`, `shared-state`).
   */
  onError?: (error: Error, where: string) => void
  /**
   * The state store to keep fitted conversations' change logs and usage counters in (several gateways in one
   * process may share one); default: the one the config's `store` names, opened at start and closed with the
   * gateway (a `MemoryStateStore` when it names none).
   */
  stateStore?: StateStore
}

/** The config fields only a restart changes: a reload keeps their values in force. */
export const RESTART_ONLY = ["host", "port", "tokenEnv", "store"] as const

/** What a reload did: the changed fields it kept at their old value until a restart. */
export interface ReloadResult {
  kept: (typeof RESTART_ONLY)[number][]
}

/** The base URLs to give each client API. */
export interface GatewayUrls {
  /** Anthropic SDK `baseURL`, `ANTHROPIC_BASE_URL`. */
  anthropic: string
  /** OpenAI SDK `baseURL`, `OPENAI_BASE_URL` (ends in `/v1`). */
  openai: string
  /** @google/genai `httpOptions.baseUrl`, `GOOGLE_GEMINI_BASE_URL`. */
  gemini: string
  /** The Responses WebSocket endpoint. */
  responsesWebSocket: string
}

/** A running gateway. */
export class Gateway {
  /** Requests being answered now: HTTP requests and translated WebSocket responses. */
  #running = 0
  #seq = 0
  #counter: Promise<TokenCounter> | undefined
  /** The configuration each request is served with, read once as it arrives; `reload` swaps this value. */
  #serving: ServingConfig
  readonly #shared: GatewayShared
  #closing: Promise<void> | undefined
  #closeSockets: () => void = () => {}
  /** Records of requests that ended in this turn of the event loop, built and handed on after it (#later). */
  #records: (() => GatewayRecord)[] = []
  #recordsDue: NodeJS.Immediate | undefined
  /** The counters behind the status page, updated once per finished request. */
  readonly #status: GatewayStatus

  private constructor(
    private readonly http: Server,
    private readonly options: GatewayOptions,
    /** The settings the gateway started with (host, port and token stay these until a restart). */
    private readonly started: GatewaySettings,
    /** `http://host:port`, no trailing slash. */
    readonly url: string,
    /** Where fitted conversations' change logs and usage counters are kept. */
    readonly stateStore: StateStore,
    /** Whether the gateway opened the store (and so closes it). */
    private readonly ownsStore: boolean,
  ) {
    this.#serving = { settings: started, config: options.config, env: options.env, models: options.models ?? [] }
    const extra = options.answerHeaders
    const clock = options.clock ?? Date.now
    this.#shared = {
      clock,
      counter: () => this.#tokenCounter(),
      changeLogs: new ConversationChangeLogs(stateStore, (error) => this.#report(error, "shared-state")),
      breaker: new CircuitBreaker(
        stateStore,
        () => this.#serving.settings.fallback.breaker,
        clock,
        (upstream, circuit) => this.#status.setCircuit(upstream, circuit),
      ),
      answerHeaders: extra ? async (early) => (await extra(early)) ?? {} : undefined,
    }
    this.#status = new GatewayStatus({
      startedAt: (options.clock ?? Date.now)(),
      ...(options.models ? { models: options.models } : {}),
      ...(options.config?.upstreams ? { upstreams: options.config.upstreams } : {}),
    })
  }

  /** Resolves the settings (refusing unsafe ones) and starts listening. */
  static async start(options: GatewayOptions): Promise<Gateway> {
    const overrides: { host?: string; port?: number } = {}
    if (options.host !== undefined) overrides.host = options.host
    if (options.port !== undefined) overrides.port = options.port
    const settings = resolveSettings(options.config, options.env, overrides)
    let gateway: Gateway | undefined
    const store =
      options.stateStore ??
      (await openStateStore(options.config?.store, {
        onDegraded: (error) => {
          if (gateway) gateway.#report(error, "shared-state")
        },
      }))
    const http = createServer(serverOptions(settings))
    try {
      await listen(http, settings.host, settings.port)
    } catch (error) {
      if (!options.stateStore) await store.close()
      throw error
    }
    const { address, port } = http.address() as AddressInfo
    const host = address.includes(":") ? `[${address}]` : address
    gateway = new Gateway(http, options, { ...settings, port }, `http://${host}:${port}`, store, !options.stateStore)
    http.on("request", (req, res) => gateway.#serve(req, res))
    // Failures of the listening socket itself (too many open files, ...): reported, never the end of the process.
    http.on("error", (error) => gateway.#report(error, "server"))
    gateway.#closeSockets = attachGatewaySocket(http, {
      serving: () => gateway.#serving,
      shared: gateway.#shared,
      nextSeq: () => ++gateway.#seq,
      finish: (record) => gateway.#later(record),
      report: (error, where) => gateway.#report(error, where),
      began: () => gateway.#began(),
    })
    return gateway
  }

  /**
   * Swaps in a new configuration between requests: the requests that arrive after it are served with it, the ones
   * running finish with the one they began with. A configuration the gateway would refuse to start with (an unset
   * key variable, an upstream it cannot reach as configured) throws `GatewayConfigError`, and the one in force
   * stays. What only a restart can change (`host`, `port`, `tokenEnv`, `store`) keeps its value in force and is
   * named in the answer's `kept`.
   */
  reload(next: { config?: GatewayConfig; models?: readonly ModelInfo[] }): ReloadResult {
    const before = this.#serving
    const { started } = this
    const overrides: { host?: string; port?: number } = { host: started.host, port: started.port }
    const resolved = resolveSettings(next.config, this.options.env, overrides)
    // Against the config the gateway started with: what a restart alone changes is still that config's.
    const kept = RESTART_ONLY.filter(
      (field) => JSON.stringify(this.options.config?.[field]) !== JSON.stringify(next.config?.[field]),
    )
    // The token stays the one the gateway started with (clients hold it); a new tokenEnv waits for a restart.
    const settings: GatewaySettings = { ...resolved, host: started.host, port: started.port }
    if (started.token !== undefined) settings.token = started.token
    else delete settings.token
    this.#serving = { settings, config: next.config, env: this.options.env, models: next.models ?? before.models }
    return { kept }
  }

  /** The settings in force (the latest reload's; host, port and token the ones it started with). */
  get settings(): GatewaySettings {
    return this.#serving.settings
  }

  /** Base URLs for each client API. */
  get urls(): GatewayUrls {
    return {
      anthropic: this.url,
      openai: `${this.url}/v1`,
      gemini: this.url,
      responsesWebSocket: `${this.url.replace(/^http/, "ws")}/v1/responses`,
    }
  }

  /** The live status: totals so far, each upstream's health, the recent requests (what `/promptline/status` shows). */
  status(): GatewayStatusSnapshot {
    this.#flushRecords()
    return this.#status.snapshot((this.options.clock ?? Date.now)())
  }

  /** Requests, tokens, cached share and cost since the gateway started (a run's summary: `usageLine`). */
  usage(): UsageTotals {
    this.#flushRecords()
    return this.#status.usage()
  }

  /** Requests being answered now (translated WebSocket responses included). */
  get active(): number {
    return this.#running
  }

  /**
   * Stops taking requests and lets running answers finish, for at most `graceMs` (default the configured
   * grace); what still runs then is cut.
   */
  close(graceMs = this.settings.shutdownGraceMs): Promise<void> {
    this.#closing ??= (async () => {
      const closed = new Promise<void>((resolve) => this.http.close(() => resolve()))
      this.http.closeIdleConnections()
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())
      const drained = (async () => {
        while (this.active > 0) await new Promise((resolve) => setTimeout(resolve, 20))
      })()
      await Promise.race([drained, deadline])
      this.#closeSockets()
      this.http.closeAllConnections()
      await closed
      this.#flushRecords()
      if (this.ownsStore) await this.stateStore.close()
    })()
    return this.#closing
  }

  /** Answers one request; whatever escapes the answer's own error handling is reported and the socket closed. */
  #serve(req: IncomingMessage, res: ServerResponse): void {
    this.#handle(req, res).catch((error: unknown) => {
      this.#report(error, "request")
      res.destroy()
    })
  }

  /** Passes a failure no answer could carry to `onError` (a listener that throws is ignored). */
  #report(error: unknown, where: string): void {
    try {
      this.options.onError?.(error instanceof Error ? error : new Error(String(error)), where)
    } catch {
      // The log's own failure has nowhere left to go.
    }
  }

  /** A request began (counted as active, so a closing gateway lets it finish); returns its end. */
  #began(): () => void {
    this.#running++
    let ended = false
    return () => {
      if (!ended) this.#running--
      ended = true
    }
  }

  /** One HTTP request, top to bottom: arrive, decide, run its pipeline, record its outcome. */
  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const serving = this.#serving
    const shared = this.#shared
    const target = requestTarget(req.url)
    // The status page is not a request through the gateway: no record, log line or trace.
    if (target && isStatusPath(target.pathname))
      return serveStatus(req, res, target, { token: serving.settings.token, snapshot: () => this.status() })
    const arrived = arrive(req, target, ++this.#seq, shared.clock(), serving)
    const reply = new HttpReply(res, arrived.clientFormat, shared.clock)
    const ended = this.#began()
    if (this.#closing) res.setHeader("connection", "close")
    let request: RequestContext = arrived
    let learned: PipelineResult = NOTHING_LEARNED
    try {
      const decision = await decide(req, arrived, serving)
      request = decision.request
      learned = await runPipeline(decision, reply, serving, shared)
    } catch (error) {
      reply.failWith(error, request.secrets)
    } finally {
      ended()
      reply.close()
      const outcome = outcomeOf(reply.clientSide(), learned, shared.clock())
      this.#later(() => recordOf(request, outcome))
    }
  }

  /**
   * Hands a finished request's record on once the event loop's turn is over, with the records of the other
   * requests that ended in it: the answers of that turn leave first, and under load the record work runs as one
   * batch rather than between answers. `close` hands on what still waits.
   */
  #later(record: () => GatewayRecord): void {
    if (this.#records.push(record) === 1) this.#recordsDue = setImmediate(() => this.#flushRecords())
  }

  /** Builds and hands on every record that waits, in the order the requests ended. */
  #flushRecords(): void {
    clearImmediate(this.#recordsDue)
    const due = this.#records
    this.#records = []
    for (const record of due) {
      let built: GatewayRecord
      try {
        built = record()
      } catch (error) {
        this.#report(error, "record")
        continue
      }
      this.#finish(built)
    }
  }

  /** The token counter, loaded on first use and shared by every request. */
  #tokenCounter(): Promise<TokenCounter> {
    this.#counter ??= TokenCounter.create()
    return this.#counter
  }

  /** Hands a finished request's record on; a hook that throws is reported, never the request's or the process's end. */
  #finish(record: GatewayRecord): void {
    // Counted in the store; a store that fails has said so already, and the request is not the worse for it.
    addRecordUsage(this.stateStore, record).catch(() => {})
    try {
      this.#status.add(record)
    } catch (error) {
      this.#report(error, "status")
    }
    try {
      emitSpan(record)
      this.options.onRequest?.(record)
    } catch (error) {
      this.#report(error, "record")
    }
  }
}

/** Runs the pipeline a request was decided for; a refusal is thrown, to be answered in the client's shape. */
function runPipeline(
  decision: Decision | Refusal,
  reply: HttpReply,
  serving: ServingConfig,
  shared: GatewayShared,
): Promise<PipelineResult> {
  switch (decision.pipeline) {
    case "refused":
      throw decision.error
    case "models":
      return answerModelList(decision.request, reply, serving)
    case "same-format":
      if (decision.request.fallbacks) return fallBack(decision.request, reply, serving, shared)
      return passThrough(decision.request, reply, serving, shared)
    case "translate":
      if (decision.request.fallbacks) return fallBack(decision.request, reply, serving, shared)
      return translate(decision.request, reply, serving, shared)
    case "count":
      if (decision.request.fallbacks) return fallBack(decision.request, reply, serving, shared)
      return countTranslated(decision.request, reply, serving, shared)
  }
}

/** Starts a gateway; see Gateway. */
export function startGateway(options: GatewayOptions): Promise<Gateway> {
  return Gateway.start(options)
}
