/**
 * The Responses API's WebSocket mode on `/v1/responses`: each client connection is relayed to a WebSocket
 * connection to the upstream, frame for frame (same-format), so `previous_response_id` keeps naming responses
 * the upstream connection holds. The route is planned from the model of the first `response.create`; a
 * connection stays on that upstream. One record per `response.create`, closed by the upstream's terminal event.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { RawData, WebSocket } from "ws"
import { responsesSocketUrl } from "../agent/transport/endpoints.js"
import type { GatewayConfig } from "../config/gateway.js"
import { lazyModule } from "../lazy-module.js"
import { formatModule } from "../providers/formats.js"
import type { StreamEvent } from "../providers/stream.js"
import type { GatewayRecord } from "./record.js"
import { isRefusal, planRoute } from "./routing.js"
import { hasToken, redactHeaders } from "./secrets.js"
import type { GatewaySettings } from "./settings.js"
import { upstreamEndpoint, upstreamKey } from "./target.js"

const wsModule = lazyModule<typeof import("ws")>("ws")

/** What the WebSocket side of a gateway needs from it. */
export interface SocketContext {
  settings: GatewaySettings
  config: GatewayConfig | undefined
  env: Readonly<Record<string, string | undefined>>
  clock: () => number
  nextSeq: () => number
  finish: (record: GatewayRecord) => void
}

const errorFrame = (status: number, type: string, message: string) =>
  JSON.stringify({ type: "error", status, error: { type, code: null, message, param: null } })

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete", "error"])

/** Serves the Responses WebSocket mode on `server`; returns a function that closes every connection. */
export function attachGatewaySocket(server: Server, context: SocketContext): () => void {
  const wss = new (wsModule().WebSocketServer)({ noServer: true })
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://gateway.invalid")
    const refuse = (status: string) =>
      socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
    if (url.pathname !== "/v1/responses" && url.pathname !== "/responses") return refuse("404 Not Found")
    const token = context.settings.token
    if (token !== undefined && !hasToken(req.headers, url.searchParams, token)) return refuse("401 Unauthorized")
    wss.handleUpgrade(req, socket, head, (client) => relay(client, req, url, context))
  })
  return () => {
    for (const client of wss.clients) client.terminate()
    wss.close()
  }
}

function relay(client: WebSocket, req: IncomingMessage, url: URL, context: SocketContext): void {
  let upstream: WebSocket | undefined
  let open: Promise<void> | undefined
  const pending: { record: GatewayRecord; events: StreamEvent[] }[] = []
  const decoder = formatModule("openai-responses").createDecoder({})
  client.on("message", async (data: RawData, isBinary: boolean) => {
    const text = isBinary ? "" : String(data)
    let event: Record<string, unknown> | undefined
    try {
      const parsed = JSON.parse(text) as unknown
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        event = parsed as Record<string, unknown>
    } catch {
      // answered below
    }
    if (event?.type !== "response.create")
      return client.send(errorFrame(400, "invalid_request_error", "send a JSON response.create event"))
    const model = typeof event.model === "string" ? event.model : ""
    const plan = planRoute("openai-responses", model, context.config)
    if (isRefusal(plan))
      return client.send(errorFrame(plan.kind === "not-found" ? 404 : 400, "invalid_request_error", plan.refused))
    if (plan.mode !== "same-format")
      return client.send(
        errorFrame(
          400,
          "invalid_request_error",
          "the WebSocket mode is relayed to a Responses upstream only; use HTTP for a translating route",
        ),
      )
    const record: GatewayRecord = {
      seq: context.nextSeq(),
      startedAt: context.clock(),
      latencyMs: 0,
      clientFormat: "openai-responses",
      transport: "websocket",
      model,
      upstream: {
        name: plan.upstream.name,
        provider: plan.upstream.provider,
        format: plan.upstream.format,
        model: plan.model,
      },
      mode: plan.mode,
      status: 101,
      dropped: [],
      conversationKey: String(req.headers["x-promptline-conversation"] ?? ""),
      received: { url: url.pathname, headers: redactHeaders(req.headers), body: event },
    }
    pending.push({ record, events: [] })
    if (!open) {
      const key = upstreamKey(plan.upstream, context.env, {
        headers: req.headers,
        query: url.searchParams,
        tokenInUse: context.settings.token !== undefined,
      })
      const endpoint = upstreamEndpoint(plan.upstream, key)
      const { "content-type": _type, ...headers } = endpoint.headers
      const socket = new (wsModule().WebSocket)(responsesSocketUrl(endpoint), {
        headers,
        handshakeTimeout: context.settings.connectTimeoutMs,
      })
      upstream = socket
      open = new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve())
        socket.once("error", reject)
      })
      socket.on("message", (frame: RawData) => {
        const payload = String(frame)
        client.send(payload)
        const current = pending[0]
        if (!current) return
        let parsed: Record<string, unknown> | undefined
        try {
          parsed = JSON.parse(payload) as Record<string, unknown>
        } catch {
          return
        }
        decoder.push(parsed, current.events)
        if (TERMINAL.has(String(parsed.type))) {
          pending.shift()
          finishRecord(current.record, current.events, context)
        }
      })
      socket.on("close", () => client.close())
      client.on("close", () => socket.terminate())
    }
    try {
      await open
    } catch (error) {
      pending.pop()
      client.send(
        errorFrame(
          502,
          "server_error",
          `the upstream ${plan.upstream.name} WebSocket failed: ${(error as Error).message}`,
        ),
      )
      client.close()
      return
    }
    const out = plan.model !== model ? JSON.stringify({ ...event, model: plan.model }) : text
    record.sent = { url: responsesSocketUrl(upstreamEndpoint(plan.upstream, "")), headers: {}, body: JSON.parse(out) }
    upstream!.send(out)
  })
}

function finishRecord(record: GatewayRecord, events: readonly StreamEvent[], context: SocketContext): void {
  record.latencyMs = Math.max(0, context.clock() - record.startedAt)
  for (const e of events)
    if (e.type === "usage")
      record.usage = { input: e.input, output: e.output, cacheRead: e.cacheRead, cacheWrite: e.cacheWrite }
    else if (e.type === "stop") record.stop = e.reason
    else if (e.type === "error") record.error = { kind: e.kind ?? "server", message: e.message }
  context.finish(record)
}
