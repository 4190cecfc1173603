import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { PromptlineError } from "../errors.js"
import { TokenCounter } from "../history/tokens.js"
import { clientApiOf, countingFormat, routeOf } from "../providers/api-paths.js"
import type { WireFormatDescriptor } from "../providers/descriptor.js"
import { descriptorOf } from "../providers/descriptors.js"
import { CacheSimulation } from "./cache-simulation.js"
import { CompactionSimulation } from "./compaction-simulation.js"
import {
  type Answer,
  type Divergence,
  handlerOf,
  type RecordedRequest,
  Replayer,
  type ReplayerOptions,
  redactHeaders,
} from "./replayer.js"
import type { ReplayFault, ReplayScript } from "./script.js"
import { attachResponsesWebSocket, type ResponsesWebSocket } from "./websocket.js"

/** Options of a replay server. */
export interface ReplayServerOptions extends ReplayerOptions {
  script: ReplayScript
  /** Interface to listen on; 127.0.0.1 by default. */
  host?: string
  /** Port; 0 (any free port) by default. */
  port?: number
  /**
   * `simulate`: bill each answer's input, cache reads and cache writes as the provider's prompt cache would
   * (prefix shared with earlier requests, breakpoints, minimum size, lifetime); see cache-simulation.ts.
   */
  cache?: "simulate"
  /**
   * `simulate`: answer a turn request that asks for server-side compaction (Anthropic's compaction edit, Responses
   * `compact_threshold`) and reaches its trigger with a compaction item first, as the provider would; see
   * compaction-simulation.ts. A scripted compaction item wins.
   */
  compaction?: "simulate"
  /** The clock of the cache simulation, in milliseconds; `Date.now` by default. */
  now?: () => number
}

/** The replay did not go as scripted: a divergence, or turns left unanswered. */
export class ReplayError extends PromptlineError {
  constructor(message: string) {
    super("replay-incomplete", message)
  }
}

/** The base URLs to give each provider's client. */
export interface ReplayUrls {
  /** Anthropic SDK `baseURL` (it appends `/v1/messages`). */
  anthropic: string
  /** OpenAI SDK `baseURL` for Chat, Responses and OpenAI-compatible clients (ends in `/v1`). */
  openai: string
  /** @google/genai `httpOptions.baseUrl`. */
  gemini: string
  /** The Responses WebSocket endpoint (`ws://…/v1/responses`). */
  responsesWebSocket: string
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
}

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" }
const JSON_HEADERS = { "content-type": "application/json" }

/**
 * A local HTTP server that answers LLM requests from a replay script, in each provider's real
 * wire format (SSE streams included, and the Responses WebSocket mode). Every request is recorded.
 */
export class ReplayServer {
  private constructor(
    private readonly http: Server,
    private readonly socket: ResponsesWebSocket,
    readonly replayer: Replayer,
    /** `http://host:port`, no trailing slash. */
    readonly url: string,
  ) {}

  /** Starts a server on a free port (unless one is given). */
  static async start(options: ReplayServerOptions): Promise<ReplayServer> {
    const cacheSimulation =
      options.cache === "simulate"
        ? new CacheSimulation({ counter: await TokenCounter.create(), ...(options.now ? { now: options.now } : {}) })
        : options.cacheSimulation
    const compactionSimulation =
      options.compaction === "simulate"
        ? new CompactionSimulation({ counter: await TokenCounter.create() })
        : options.compactionSimulation
    const replayer = new Replayer(options.script, {
      ...options,
      ...(cacheSimulation ? { cacheSimulation } : {}),
      ...(compactionSimulation ? { compactionSimulation } : {}),
    })
    const http = createServer()
    const socket = attachResponsesWebSocket(http, replayer)
    await new Promise<void>((resolve, reject) => {
      http.once("error", reject)
      http.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve())
    })
    const { address, port } = http.address() as AddressInfo
    const host = address.includes(":") ? `[${address}]` : address
    const server = new ReplayServer(http, socket, replayer, `http://${host}:${port}`)
    http.on("request", (req, res) => {
      server.onRequest(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, JSON_HEADERS)
        res.end(JSON.stringify({ error: { message: String(error), type: "server_error" } }))
      })
    })
    return server
  }

  /** Base URLs for each provider's client. */
  get urls(): ReplayUrls {
    return {
      anthropic: this.url,
      openai: `${this.url}/v1`,
      gemini: this.url,
      responsesWebSocket: `${this.url.replace(/^http/, "ws")}/v1/responses`,
    }
  }

  /** Every request received, in arrival order. */
  get requests(): readonly RecordedRequest[] {
    return this.replayer.requests
  }

  /** Requests that left the scripted path. */
  get divergences(): readonly Divergence[] {
    return this.replayer.divergences
  }

  /** Turns answered so far. */
  get served(): number {
    return this.replayer.served
  }

  /** Serves `fault` once on turn `turn` (0-based) before the turn itself. */
  injectFault(turn: number, fault: ReplayFault): void {
    this.replayer.injectFault(turn, fault)
  }

  /** Throws a ReplayError when a request diverged or scripted turns were left unanswered. */
  assertComplete(): void {
    const lines = this.divergences.map((d) => `request ${d.seq + 1} (turn ${d.turn + 1}): ${d.problems.join("; ")}`)
    if (this.replayer.remaining > 0)
      lines.push(`${this.replayer.remaining} of ${this.replayer.script.turns.length} turns were never requested`)
    if (lines.length > 0) throw new ReplayError(`the replay did not follow its script:\n  ${lines.join("\n  ")}`)
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    await this.socket.close()
    this.http.closeAllConnections()
    await new Promise<void>((resolve) => this.http.close(() => resolve()))
  }

  /** Records a request the server answers itself, with no turn (token counting, compaction): answered, 200. */
  private answered(req: IncomingMessage, url: URL, body: object, format: RecordedRequest["format"]) {
    const record = this.replayer.record({
      transport: "http",
      method: "POST",
      path: url.pathname,
      query: url.search,
      headers: redactHeaders(req.headers),
      body,
      format,
    })
    record.outcome = "answered"
    record.status = 200
    return record
  }

  /**
   * OpenAI's `POST /v1/responses/compact`: the input's user messages, then one compaction item (the script's
   * `compact.payload`, else one named after the request), and usage estimated as for turns. Uses no turn.
   */
  private compactAnswer(res: ServerResponse, url: URL, req: IncomingMessage, body: Record<string, unknown>): void {
    const record = this.answered(req, url, body, "openai-responses")
    record.compact = true
    const input = Array.isArray(body.input) ? body.input : []
    const users = input.filter((item) => {
      const o = item as Record<string, unknown> | null
      return o !== null && typeof o === "object" && (o.type ?? "message") === "message" && o.role === "user"
    })
    const n = record.seq
    const payload = this.replayer.script.compact?.payload ?? `replay-compaction-${n}`
    const tokens = Math.ceil(JSON.stringify(body).length / 4)
    res.writeHead(200, JSON_HEADERS)
    res.end(
      JSON.stringify({
        id: `resp_compact_replay_${n}`,
        object: "response.compaction",
        created_at: 0,
        output: [...users, { type: "compaction", id: `cmp_compact_replay_${n}`, encrypted_content: payload }],
        usage: { input_tokens: tokens, output_tokens: 0, total_tokens: tokens },
      }),
    )
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://replay.invalid")
    const raw = await readBody(req)
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {
      // kept as text in the record
    }
    const counting = countingFormat(url.pathname)
    if (counting && req.method === "POST" && typeof body === "object" && body !== null) {
      // Token counting: the same estimate the replay's usage uses (a quarter of the body's characters).
      const tokens = Math.ceil(JSON.stringify(body).length / 4)
      const record = this.answered(req, url, body, counting)
      record.count = tokens
      res.writeHead(200, JSON_HEADERS)
      res.end(JSON.stringify((descriptorOf(counting) as WireFormatDescriptor).counting?.answer(tokens)))
      return
    }
    if (
      url.pathname.endsWith("/responses/compact") &&
      req.method === "POST" &&
      typeof body === "object" &&
      body !== null
    ) {
      this.compactAnswer(res, url, req, body as Record<string, unknown>)
      return
    }
    const match = routeOf(url.pathname, url.searchParams)
    const record = this.replayer.record({
      transport: "http",
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.search,
      headers: redactHeaders(req.headers),
      body,
      ...(match ? { format: match.format } : {}),
    })
    // A path no API serves is refused in the shape of the API its request marks (OpenAI's when nothing does).
    const handler = handlerOf(match?.format ?? clientApiOf(url.pathname, req.headers))
    const refuse = (status: number, message: string, outcome: RecordedRequest["outcome"]) => {
      const kind = status === 404 ? "not-found" : "invalid-request"
      const error = handler.error({ kind, message })
      record.outcome = outcome
      record.status = status
      record.problems = [message]
      res.writeHead(status, { ...JSON_HEADERS, ...error.headers })
      res.end(JSON.stringify(error.body))
    }
    if (!match) return refuse(404, `no route for ${req.method} ${url.pathname}`, "not-found")
    if (req.method !== "POST")
      return refuse(405, `${req.method} is not allowed on ${url.pathname}; use POST`, "rejected")
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return refuse(400, "the request body is not a JSON object", "rejected")
    const answer = this.replayer.handle(record, match.format, body as Record<string, unknown>, match.route)
    this.write(res, answer, match.route.sse)
  }

  private write(res: ServerResponse, answer: Answer, sse: boolean | undefined): void {
    if (answer.type === "failure") {
      const error = answer.handler.error(answer.failure)
      res.writeHead(error.status, { ...JSON_HEADERS, ...error.headers })
      res.end(JSON.stringify(error.body))
      return
    }
    const { handler } = answer
    if (answer.type === "warmup") {
      res.writeHead(200, JSON_HEADERS)
      res.end(JSON.stringify((answer.events.at(-1) as { response: unknown }).response))
      return
    }
    const { render } = answer
    const stream = render.view.stream
    // A format that streams one JSON array of chunks without server-sent events (Gemini without alt=sse).
    const asArray = handler.array !== undefined && stream && sse !== true
    if (answer.type === "disconnect") {
      if (!stream || asArray) {
        res.socket?.destroy()
        return
      }
      const frames = handler.sse(handler.events(render))
      res.writeHead(200, SSE_HEADERS)
      // Destroy only once the first half has left, so the client sees a stream cut mid-way.
      res.write(frames.slice(0, Math.max(1, Math.floor(frames.length / 2))).join(""), () => res.socket?.destroy())
      return
    }
    if (asArray) {
      res.writeHead(200, JSON_HEADERS)
      res.end(handler.array?.(render) ?? JSON.stringify(handler.events(render)))
    } else if (stream) {
      res.writeHead(200, SSE_HEADERS)
      res.end(handler.sse(handler.events(render)).join(""))
    } else {
      res.writeHead(200, JSON_HEADERS)
      res.end(JSON.stringify(handler.complete(render)))
    }
  }
}

/** Starts a replay server; see ReplayServer. */
export function startReplayServer(options: ReplayServerOptions): Promise<ReplayServer> {
  return ReplayServer.start(options)
}
