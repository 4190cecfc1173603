/**
 * The gateway's HTTP server: each provider's own API in (Anthropic Messages, OpenAI Chat and Responses,
 * Gemini), routed to an upstream in the same format (bytes unchanged) or translated. Between requests it keeps the
 * change logs of fitted conversations and usage counters in its state store (memory, or Redis shared with other
 * instances); one record per request for the hook, the log and an OpenTelemetry span.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { GatewayConfig } from "../config/gateway.js"
import { TokenCounter } from "../history/tokens.js"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json.js"
import type { ModelInfo } from "../models/types.js"
import { type ApiRoute, clientApiOf, countingRouteOf, isModelListPath, routeOf } from "../providers/api-paths.js"
import { countingRequest } from "../providers/count.js"
import { descriptorOf } from "../providers/descriptors.js"
import { formatModule } from "../providers/formats.js"
import type { DecodedRequest } from "../providers/types.js"
import { ConversationChangeLogs } from "./change-logs.js"
import { countTranslated } from "./count.js"
import { GatewayError } from "./errors.js"
import { Exchange, requestTarget } from "./exchange.js"
import { listen, serverOptions } from "./listen.js"
import { modelList, routedModelNames } from "./models-list.js"
import { passThrough } from "./pass-through.js"
import { conversationKey, type GatewayRecord } from "./record.js"
import { isRefusal, officialProvider, planRoute } from "./routing.js"
import { hasToken, redactText } from "./secrets.js"
import { isApiContentType, judgeAnswer, notTheApi } from "./send.js"
import { type GatewaySettings, resolveSettings } from "./settings.js"
import { addRecordUsage, openStateStore, type StateStore } from "./state-store.js"
import { generationUrl, upstreamEndpoint, upstreamKey } from "./target.js"
import { emitSpan } from "./telemetry.js"
import { translate } from "./translate.js"
import { callUpstream } from "./upstream.js"
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
   * the step (`request`, `upgrade`, `websocket`, `record`, `server`, `shared-state`).
   */
  onError?: (error: Error, where: string) => void
  /**
   * The state store to keep fitted conversations' change logs and usage counters in (several gateways in one
   * process may share one); default: the one the config's `store` names, opened at start and closed with the
   * gateway (a `MemoryStateStore` when it names none).
   */
  stateStore?: StateStore
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
  readonly #active = new Set<Exchange>()
  /** Translated WebSocket responses running now. */
  #socketResponses = 0
  #seq = 0
  #counter: Promise<TokenCounter> | undefined
  readonly #changeLogs: ConversationChangeLogs
  #closing: Promise<void> | undefined
  #closeSockets: () => void = () => {}

  private constructor(
    private readonly http: Server,
    private readonly options: GatewayOptions,
    /** The settings in force. */
    readonly settings: GatewaySettings,
    /** `http://host:port`, no trailing slash. */
    readonly url: string,
    /** Where fitted conversations' change logs and usage counters are kept. */
    readonly stateStore: StateStore,
    /** Whether the gateway opened the store (and so closes it). */
    private readonly ownsStore: boolean,
  ) {
    this.#changeLogs = new ConversationChangeLogs(stateStore, (error) => this.#report(error, "shared-state"))
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
      settings: gateway.settings,
      config: options.config,
      env: options.env,
      models: options.models ?? [],
      counter: () => gateway.#tokenCounter(),
      changeLogs: gateway.#changeLogs,
      clock: options.clock ?? Date.now,
      nextSeq: () => ++gateway.#seq,
      finish: (record) => gateway.#finish(record),
      report: (error, where) => gateway.#report(error, where),
      began: () => {
        gateway.#socketResponses++
        let ended = false
        return () => {
          if (!ended) gateway.#socketResponses--
          ended = true
        }
      },
    })
    return gateway
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

  /** Requests being answered now (translated WebSocket responses included). */
  get active(): number {
    return this.#active.size + this.#socketResponses
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

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const clock = this.options.clock ?? Date.now
    const startedAt = clock()
    const target = requestTarget(req.url)
    const url = target ?? new URL("http://gateway.invalid/")
    const generation = target && routeOf(url.pathname, url.searchParams)
    const counting = target && !generation ? countingRouteOf(url.pathname) : undefined
    const format = generation?.format ?? counting?.format ?? clientApiOf(url.pathname, req.headers)
    const ex = new Exchange(req, res, url, ++this.#seq, startedAt, clock, format)
    const extra = this.options.answerHeaders
    if (extra) ex.answerHeaders = async (early) => (await extra(early)) ?? {}
    this.#active.add(ex)
    if (this.#closing) res.setHeader("connection", "close")
    try {
      const token = this.settings.token
      ex.secrets.push(token)
      if (token !== undefined && !hasToken(req.headers, url.searchParams, token))
        throw new GatewayError(
          { kind: "auth", message: "this gateway needs its token (in Authorization or x-api-key)" },
          401,
        )
      if (target === undefined)
        // Not echoed: a target that cannot be parsed cannot have its key parameter redacted either.
        throw new GatewayError({
          kind: "invalid-request",
          message: "the request target is neither a path nor a valid absolute URL",
        })
      const invalid = (generation ?? counting)?.invalid
      if (invalid !== undefined) throw new GatewayError({ kind: "invalid-request", message: invalid })
      if (isModelListPath(url.pathname)) await this.#models(ex)
      else if (generation || counting) await this.#generation(ex, (generation ?? counting)!, counting !== undefined)
      else
        throw new GatewayError(
          {
            kind: "not-found",
            message: `no API at ${req.method} ${url.pathname}; the gateway serves /v1/messages, /v1/chat/completions, /v1/responses and /v1beta/models/{model}:generateContent`,
          },
          404,
        )
    } catch (error) {
      ex.failWith(error)
    } finally {
      this.#active.delete(ex)
      if (!res.writableEnded && !res.destroyed) res.end()
      this.#finish(ex.record())
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
      emitSpan(record)
      this.options.onRequest?.(record)
    } catch (error) {
      this.#report(error, "record")
    }
  }

  async #generation(ex: Exchange, match: ApiRoute, counting: boolean): Promise<void> {
    const { req } = ex
    if (req.method !== "POST")
      throw new GatewayError(
        { kind: "invalid-request", message: `${req.method} is not allowed on ${ex.url.pathname}; use POST` },
        405,
      )
    const type = req.headers["content-type"]
    if (type !== undefined && !/json/i.test(type))
      throw new GatewayError(
        { kind: "invalid-request", message: `the content type is ${type}; send application/json` },
        415,
      )
    const raw = await ex.readBody(this.settings.bodyLimit, this.settings.bodyTimeoutMs)
    // Every layer that walks a body recurses: nesting past the limit is refused before anything reads it.
    if (nestsDeeperThan(raw, MAX_JSON_DEPTH)) {
      ex.body = raw.subarray(0, 1000).toString("utf8")
      throw new GatewayError({
        kind: "invalid-request",
        message: `the request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the gateway's limit`,
      })
    }
    let body: unknown
    try {
      body = JSON.parse(raw.toString("utf8"))
    } catch (error) {
      ex.body = raw.toString("utf8").slice(0, 1000)
      throw new GatewayError({
        kind: "invalid-request",
        message: `the request body is not valid JSON: ${(error as Error).message}`,
      })
    }
    ex.body = body
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new GatewayError({ kind: "invalid-request", message: "the request body is not a JSON object" })
    const fields = body as Record<string, unknown>
    const model = match.route.model ?? (typeof fields.model === "string" ? fields.model : undefined)
    if (model === undefined)
      throw new GatewayError({ kind: "invalid-request", message: "the request names no model", param: "model" })
    ex.model = model
    const plan = planRoute(match.format, model, this.options.config)
    if (isRefusal(plan)) throw new GatewayError({ kind: plan.kind, message: plan.refused, param: "model" })
    ex.routeTo(plan.upstream, plan.model, plan.mode)
    const key = upstreamKey(plan.upstream, this.options.env, {
      headers: req.headers,
      query: ex.url.searchParams,
      tokenInUse: this.settings.token !== undefined,
    })
    if (plan.mode === "same-format") {
      // The key needs the decoded body, which forwarding does not: worked out when the record is built.
      ex.conversationKeyLater = () => conversationKey(req.headers, this.#decode(fields, match, false))
      const stream = match.route.stream ?? fields.stream === true
      await passThrough(ex, {
        plan,
        raw,
        body: fields,
        key,
        settings: this.settings,
        url: (endpoint) =>
          counting
            ? countingRequest(endpoint, plan.upstream.format, plan.model, {}).url
            : generationUrl(endpoint, plan.model, stream, ex.url.searchParams),
      })
      return
    }
    const decoded = this.#decode(fields, match, true)!
    ex.conversationKey = conversationKey(req.headers, decoded)
    const counter = () => this.#tokenCounter()
    if (counting) {
      await countTranslated(ex, decoded, { plan, key, models: this.options.models ?? [], counter })
      return
    }
    await translate(ex, decoded, {
      plan,
      body: fields,
      route: match.route,
      key,
      settings: this.settings,
      models: this.options.models ?? [],
      counter,
      changeLogs: this.#changeLogs,
    })
  }

  /**
   * The client's body in promptline's terms: required to translate (a bad body is the client's 400), and read
   * for the conversation key only when a hook listens (a body the decoder cannot read still passes through).
   */
  #decode(body: Record<string, unknown>, match: ApiRoute, required: boolean): DecodedRequest | undefined {
    const module = formatModule(match.format)
    if (required) return module.decodeRequest(body, match.route)
    if (!this.options.onRequest) return undefined
    try {
      return module.decodeRequest(body, match.route)
    } catch {
      return undefined
    }
  }

  async #models(ex: Exchange): Promise<void> {
    if (ex.req.method !== "GET")
      throw new GatewayError(
        { kind: "invalid-request", message: `${ex.req.method} is not allowed on ${ex.url.pathname}; use GET` },
        405,
      )
    const routes = this.options.config?.routes ?? []
    if (routes.length > 0) {
      ex.markFirstByte()
      ex.res.writeHead(200, { "content-type": "application/json" })
      ex.res.end(JSON.stringify(modelList(descriptorOf(ex.clientFormat), routedModelNames(routes))))
      return
    }
    const provider = officialProvider(ex.clientFormat)!
    const upstream = { name: provider, provider, format: ex.clientFormat }
    const key = upstreamKey(upstream, this.options.env, {
      headers: ex.req.headers,
      query: ex.url.searchParams,
      tokenInUse: this.settings.token !== undefined,
    })
    ex.secrets.push(key)
    const endpoint = upstreamEndpoint(upstream, key)
    const path = ex.url.pathname.replace(/^\/v1(?=\/models)/, "")
    const base = new URL(endpoint.baseUrl)
    const target = `${endpoint.baseUrl}${base.pathname.endsWith("/v1") ? path : ex.url.pathname}`
    const answer = await callUpstream({
      url: target,
      method: "GET",
      headers: { ...endpoint.headers },
      signal: ex.abort.signal,
      connectTimeoutMs: this.settings.connectTimeoutMs,
      idleTimeoutMs: this.settings.idleTimeoutMs,
    })
    const { type, failure } = await judgeAnswer(answer)
    if (failure && (!isApiContentType(type) || failure.text.trim() === ""))
      throw notTheApi(upstream.name, answer.status, type, failure.error, "JSON")
    ex.markFirstByte()
    ex.res.writeHead(answer.status, { "content-type": type || "application/json" })
    if (failure) {
      // The provider's own error, in the client's own format: forwarded as it is, less any key it quotes.
      ex.error = { kind: failure.error.kind, message: failure.error.message }
      ex.res.end(redactText(failure.text, ex.secrets))
      return
    }
    for await (const chunk of answer.body as AsyncIterable<Buffer>) ex.res.write(chunk)
    ex.res.end()
  }
}

/** Starts a gateway; see Gateway. */
export function startGateway(options: GatewayOptions): Promise<Gateway> {
  return Gateway.start(options)
}
