/**
 * The Responses API's WebSocket mode on `/v1/responses`: the upgrade, then each `response.create` of a connection
 * read, decided as a request (socket-request.ts) and handed to the connection's pipeline. The first one decides
 * how the connection is served: a same-format route relays it to a WebSocket connection to the upstream
 * (socket-relay.ts); a translating route translates each response over HTTP (socket-translate.ts). One record per
 * `response.create`.
 */
import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { RawData, WebSocket, WebSocketServer } from "ws"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json.js"
import { lazyModule } from "../lazy-module.js"
import { requestTarget } from "./request.js"
import type { GatewayMode } from "./routing.js"
import { hasToken } from "./secrets.js"
import type { ServingConfig } from "./serving.js"
import { socketRelay } from "./socket-relay.js"
import { type SocketConnection, type SocketGateway, type SocketRequest, socketRequest } from "./socket-request.js"
import { SocketTranslator, socketErrorEvent } from "./socket-translate.js"

export type { SocketGateway } from "./socket-request.js"

const wsModule = lazyModule<typeof import("ws")>("ws")

const errorFrame = (status: number, message: string) =>
  JSON.stringify(socketErrorEvent({ kind: status === 404 ? "not-found" : "invalid-request", message }, status))

/**
 * Serves the Responses WebSocket mode on `server`; returns a function that closes every connection. Nothing a
 * client sends ends the process: a request that cannot be upgraded is refused, a frame the protocol forbids closes
 * that connection (ws answers it with the close code), and any other failure is reported and closes the socket.
 */
export function attachGatewaySocket(server: Server, gateway: SocketGateway): () => void {
  // A message as large as a request body may be, no larger (ws's own default is 100 MiB).
  const wss = new (wsModule().WebSocketServer)({ noServer: true, maxPayload: gateway.serving().settings.bodyLimit })
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Node hands the socket over without its error listener: a reset while refusing must not go unheard.
    socket.on("error", () => socket.destroy())
    try {
      upgrade(wss, req, socket, head, gateway)
    } catch (error) {
      gateway.report(error, "upgrade")
      socket.destroy()
    }
  })
  return () => {
    for (const client of wss.clients) client.terminate()
    wss.close()
  }
}

/** Upgrades one request to a connection, or refuses it with a bare HTTP status. */
function upgrade(wss: WebSocketServer, req: IncomingMessage, socket: Duplex, head: Buffer, gateway: SocketGateway) {
  const url = requestTarget(req.url)
  const refuse = (status: string) =>
    void socket.end(`HTTP/1.1 ${status}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
  if (url === undefined) return refuse("400 Bad Request")
  if (url.pathname !== "/v1/responses" && url.pathname !== "/responses") return refuse("404 Not Found")
  const token = gateway.serving().settings.token
  if (token !== undefined && !hasToken(req.headers, url.searchParams, token)) return refuse("401 Unauthorized")
  wss.handleUpgrade(req, socket, head, (client) => {
    // A frame the protocol forbids (unmasked, too large, not UTF-8) is an error ws closes the connection for.
    client.on("error", () => client.terminate())
    serve(client, { req, url }, gateway)
  })
}

/** How a connection serves its responses, fixed by its first `response.create`. */
interface Pipeline {
  mode: GatewayMode
  take: (request: SocketRequest, text: string, serving: ServingConfig) => void
}

/** The pipeline of a connection whose first response was routed in `mode`. */
function pipelineFor(mode: GatewayMode, client: WebSocket, connection: SocketConnection, gateway: SocketGateway) {
  if (mode === "same-format") {
    const relay = socketRelay(client, connection, gateway)
    const take = (request: SocketRequest, text: string, serving: ServingConfig) =>
      void relay(request, text, serving).catch((error: unknown) => {
        gateway.report(error, "websocket")
        client.terminate()
      })
    return { mode, take }
  }
  const translator = new SocketTranslator(client, gateway, gateway.serving().settings.bodyLimit)
  return {
    mode,
    take: (request: SocketRequest, _text: string, serving: ServingConfig) => translator.accept(request, serving),
  }
}

/** The event a message holds, or the error frame that answers it. */
function eventOf(data: RawData, isBinary: boolean): { event: Record<string, unknown>; text: string } | string {
  const bytes = isBinary
    ? undefined
    : Buffer.isBuffer(data)
      ? data
      : Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.from(data)
  if (bytes !== undefined && nestsDeeperThan(bytes, MAX_JSON_DEPTH))
    return errorFrame(
      400,
      `the event nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels, the gateway's limit`,
    )
  const text = bytes?.toString("utf8") ?? ""
  try {
    const parsed = JSON.parse(text) as unknown
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
      const event = parsed as Record<string, unknown>
      if (event.type === "response.create") return { event, text }
    }
  } catch {
    // answered below
  }
  return errorFrame(400, "send a JSON response.create event")
}

function serve(client: WebSocket, connection: SocketConnection, gateway: SocketGateway): void {
  let pipeline: Pipeline | undefined
  const take = (data: RawData, isBinary: boolean) => {
    const read = eventOf(data, isBinary)
    if (typeof read === "string") return client.send(read)
    const serving = gateway.serving()
    const arrival = () => ({ seq: gateway.nextSeq(), startedAt: gateway.shared.clock() })
    const request = socketRequest(connection, read.event, serving, arrival, pipeline?.mode)
    if ("refused" in request) return client.send(errorFrame(request.kind === "not-found" ? 404 : 400, request.refused))
    pipeline ??= pipelineFor(request.route.mode, client, connection, gateway)
    pipeline.take(request, read.text, serving)
  }
  client.on("message", (data: RawData, isBinary: boolean) => {
    try {
      take(data, isBinary)
    } catch (error) {
      gateway.report(error, "websocket")
      client.terminate()
    }
  })
}
