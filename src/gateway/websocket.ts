/**
 * The Responses API's WebSocket mode on `/v1/responses`. The first `response.create` of a connection decides how
 * it is served: a same-format route relays the connection to a WebSocket connection to the upstream, frame for
 * frame, so `previous_response_id` keeps naming responses the upstream connection holds (the connection stays on
 * that upstream); a translating route translates each response over HTTP (socket-translate.ts). One record per
 * `response.create`.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { RawData, WebSocket, WebSocketServer } from "ws"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json.js"
import { lazyModule } from "../lazy-module.js"
import { responsesSocketUrl } from "../providers/endpoints.js"
import { formatModule } from "../providers/formats.js"
import type { StreamEvent } from "../providers/stream.js"
import { requestTarget } from "./exchange.js"
import type { GatewayRecord } from "./record.js"
import { isRefusal, planRoute, type RoutePlan } from "./routing.js"
import { clientKey, hasToken, redactDeep, redactErrorFrame } from "./secrets.js"
import { type SocketContext, socketRecord } from "./socket-context.js"
import { SocketTranslator, socketErrorEvent } from "./socket-translate.js"
import { upstreamEndpoint, upstreamKey } from "./target.js"

export type { SocketContext } from "./socket-context.js"

const wsModule = lazyModule<typeof import("ws")>("ws")

const errorFrame = (status: number, message: string) =>
  JSON.stringify(socketErrorEvent({ kind: status === 404 ? "not-found" : "invalid-request", message }, status))

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete", "error"])

/**
 * Serves the Responses WebSocket mode on `server`; returns a function that closes every connection. Nothing a
 * client sends ends the process: a request that cannot be upgraded is refused, a frame the protocol forbids closes
 * that connection (ws answers it with the close code), and any other failure is reported and closes the socket.
 */
export function attachGatewaySocket(server: Server, context: SocketContext): () => void {
  // A message as large as a request body may be, no larger (ws's own default is 100 MiB).
  const wss = new (wsModule().WebSocketServer)({ noServer: true, maxPayload: context.settings.bodyLimit })
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the socket over without its error listener: a reset while refusing must not go unheard.
    socket.on("error", () => socket.destroy())
    try {
      upgrade(wss, req, socket, head, context)
    } catch (error) {
      context.report(error, "upgrade")
      socket.destroy()
    }
  })
  return () => {
    for (const client of wss.clients) client.terminate()
    wss.close()
  }
}

/** Upgrades one request to a connection, or refuses it with a bare HTTP status. */
function upgrade(wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, context: SocketContext) {
  const url = requestTarget(req.url)
  const refuse = (status: string) =>
    void socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
  if (url === undefined) return refuse("400 Bad Request")
  if (url.pathname !== "/v1/responses" && url.pathname !== "/responses") return refuse("404 Not Found")
  const token = context.settings.token
  if (token !== undefined && !hasToken(req.headers, url.searchParams, token)) return refuse("401 Unauthorized")
  wss.handleUpgrade(req, socket, head, (client) => {
    // A frame the protocol forbids (unmasked, too large, not UTF-8) is an error ws closes the connection for.
    client.on("error", () => client.terminate())
    serve(client, req, url, context)
  })
}

/** Serves one response.create event of a connection. */
type Handler = {
  mode: RoutePlan["mode"]
  take: (event: Record<string, unknown>, text: string, plan: RoutePlan, model: string) => void
}

function serve(client: WebSocket, req: IncomingMessage, url: URL, context: SocketContext): void {
  let handler: Handler | undefined
  const take = (data: RawData, isBinary: boolean) => {
    const bytes = isBinary
      ? undefined
      : Buffer.isBuffer(data)
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data)
    if (bytes !== undefined && nestsDeeperThan(bytes, MAX_JSON_DEPTH))
      return client.send(
        errorFrame(400, `the event nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the gateway's limit`),
      )
    const text = bytes?.toString("utf8") ?? ""
    let event: Record<string, unknown> | undefined
    try {
      const parsed = JSON.parse(text) as unknown
      if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
        event = parsed as Record<string, unknown>
    } catch {
      // answered below
    }
    if (event?.type !== "response.create") return client.send(errorFrame(400, "send a JSON response.create event"))
    const model = typeof event.model === "string" ? event.model : ""
    const plan = planRoute("openai-responses", model, context.config)
    if (isRefusal(plan)) return client.send(errorFrame(plan.kind === "not-found" ? 404 : 400, plan.refused))
    if (!handler) {
      if (plan.mode === "same-format") {
        const send = relay(client, req, url, context)
        handler = {
          mode: plan.mode,
          take: (e, t, p, m) =>
            void send(e, t, p, m).catch((error: unknown) => {
              context.report(error, "websocket")
              client.terminate()
            }),
        }
      } else {
        const translator = new SocketTranslator(client, req, url, context)
        handler = { mode: plan.mode, take: (e, _text, p, m) => translator.accept(e, p, m) }
      }
    }
    if (plan.mode !== handler.mode)
      return client.send(
        errorFrame(
          400,
          handler.mode === "same-format"
            ? `this connection is relayed to a Responses upstream; model ${model} goes to a translating route: open another connection for it`
            : `this connection translates; model ${model} goes to a same-format route: open another connection for it`,
        ),
      )
    handler.take(event, text, plan, model)
  }
  client.on("message", (data: RawData, isBinary: boolean) => {
    try {
      take(data, isBinary)
    } catch (error) {
      context.report(error, "websocket")
      client.terminate()
    }
  })
}

/** The same-format side of a connection: each response.create relayed to one upstream WebSocket connection. */
function relay(
  client: WebSocket,
  req: IncomingMessage,
  url: URL,
  context: SocketContext,
): (event: Record<string, unknown>, text: string, plan: RoutePlan, model: string) => Promise<void> {
  let upstream: WebSocket | undefined
  // Out of the records and of the errors relayed: the client's credential, the gateway's token, the upstream's key.
  const secrets = [clientKey(req.headers, url.searchParams), context.settings.token]
  // The upstream's key when it is the gateway's own (keyEnv): out of every message, not only the errors.
  const gatewayKey: string[] = []
  let open: Promise<void> | undefined
  const pending: { record: GatewayRecord; events: StreamEvent[] }[] = []
  const decoder = formatModule("openai-responses").createDecoder({})
  return async (event, text, plan, model) => {
    const record = socketRecord(
      {
        seq: context.nextSeq(),
        startedAt: context.clock(),
        latencyMs: 0,
        model,
        status: 101,
        dropped: [],
        conversationKey: String(req.headers["x-promptline-conversation"] ?? ""),
      },
      plan,
      { req, url, event },
    )
    pending.push({ record, events: [] })
    if (!open) {
      const key = upstreamKey(plan.upstream, context.env, {
        headers: req.headers,
        query: url.searchParams,
        tokenInUse: context.settings.token !== undefined,
      })
      secrets.push(key)
      if (plan.upstream.keyEnv !== undefined) gatewayKey.push(key)
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
        client.send(redactErrorFrame(payload, secrets, gatewayKey))
        const current = pending[0]
        if (!current) return
        let parsed: Record<string, unknown> | undefined
        try {
          parsed = JSON.parse(payload) as Record<string, unknown>
        } catch {
          return
        }
        if (typeof parsed !== "object" || parsed === null) return
        try {
          // The record's copy: a frame its decoder cannot read leaves the record short, never the relay.
          decoder.push(parsed, current.events)
        } catch {}
        if (TERMINAL.has(String(parsed.type))) {
          pending.shift()
          finishRecord(current.record, current.events, context, secrets)
        }
      })
      // After `open`, a failure of the upstream connection is followed by its close, which closes the client's.
      socket.on("error", () => {})
      socket.on("close", () => client.close())
      client.on("close", () => socket.terminate())
    }
    try {
      await open
    } catch (error) {
      pending.pop()
      client.send(
        JSON.stringify(
          socketErrorEvent(
            {
              kind: "network",
              message: `the upstream ${plan.upstream.name} WebSocket failed: ${(error as Error).message}`,
            },
            502,
          ),
        ),
      )
      client.close()
      return
    }
    const out = plan.model !== model ? JSON.stringify({ ...event, model: plan.model }) : text
    record.sent = { url: responsesSocketUrl(upstreamEndpoint(plan.upstream, "")), headers: {}, body: JSON.parse(out) }
    upstream!.send(out)
  }
}

function finishRecord(
  record: GatewayRecord,
  events: readonly StreamEvent[],
  context: SocketContext,
  secrets: readonly (string | undefined)[],
): void {
  record.latencyMs = Math.max(0, context.clock() - record.startedAt)
  for (const e of events)
    if (e.type === "usage")
      record.usage = { input: e.input, output: e.output, cacheRead: e.cacheRead, cacheWrite: e.cacheWrite }
    else if (e.type === "stop") record.stop = e.reason
    else if (e.type === "error") record.error = { kind: e.kind ?? "server", message: e.message }
  context.finish(redactDeep(record, secrets))
}
