import type { IncomingMessage, Server } from "node:http"
import type { Duplex } from "node:stream"
import type { WebSocket } from "ws"
import { lazyModule } from "../lazy-module.js"
import { type Replayer, redactHeaders } from "./replayer.js"
import { asRecord } from "./view.js"

/**
 * The Responses API's WebSocket mode: the client opens `GET /v1/responses` as a WebSocket and
 * sends `{"type":"response.create", ...the create body without stream}` per turn; the server
 * answers with the same `response.*` events as the HTTP stream, one JSON text frame each, and
 * keeps the connection open across turns. Errors are `{"type":"error","status":N,"error":{...}}`
 * frames and leave the connection open. `previous_response_id` may name the connection's last
 * response even when it was not stored (`store: false`); `generate: false` warms up without a turn.
 */

/** ws, required when a replay server first serves WebSockets. */
const wsModule = lazyModule<typeof import("ws")>("ws")

/** The WebSocket side of a replay server. */
export interface ResponsesWebSocket {
  /** Closes every open connection. */
  close(): Promise<void>
}

const errorFrame = (status: number, type: string, code: string | null, message: string, param: string | null = null) =>
  JSON.stringify({ type: "error", status, error: { type, code, message, param } })

/** Serves the Responses WebSocket mode on `server` (path `/v1/responses`). */
export function attachResponsesWebSocket(server: Server, replayer: Replayer): ResponsesWebSocket {
  const wss = new (wsModule().WebSocketServer)({ noServer: true })
  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? "/", "http://replay.invalid")
    if (url.pathname !== "/v1/responses") {
      socket.end("HTTP/1.1 404 Not Found\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, req, url, replayer))
  }
  server.on("upgrade", onUpgrade)
  return {
    close: () =>
      new Promise<void>((done) => {
        server.off("upgrade", onUpgrade)
        for (const client of wss.clients) client.terminate()
        wss.close(() => done())
      }),
  }
}

function serve(ws: WebSocket, req: IncomingMessage, url: URL, replayer: Replayer): void {
  let last: string | undefined
  const headers = redactHeaders(req.headers)
  ws.on("message", (data, isBinary) => {
    const raw = isBinary ? "" : String(data)
    let parsed: unknown = raw
    try {
      parsed = JSON.parse(raw)
    } catch {
      // kept as text in the record
    }
    const record = replayer.record({
      transport: "websocket",
      method: "WS",
      path: url.pathname,
      query: url.search,
      headers,
      body: parsed,
      format: "openai-responses",
    })
    const reject = (message: string, code: string | null) => {
      record.outcome = "rejected"
      record.status = 400
      record.problems = [message]
      ws.send(errorFrame(400, "invalid_request_error", code, message))
    }
    const event = asRecord(parsed)
    if (event === undefined) return reject("the message is not a JSON object", "invalid_json")
    if (event.type !== "response.create")
      return reject(
        `unsupported client event type ${JSON.stringify(event.type)}; send response.create`,
        "unknown_event",
      )
    if (event.background === true) return reject("background responses are not supported over WebSocket", null)
    const { type: _type, stream: _stream, stream_options: _options, ...body } = event
    const answer = replayer.handle(record, "openai-responses", body, {}, last)
    switch (answer.type) {
      case "failure": {
        const error = answer.handler.error(answer.failure)
        ws.send(JSON.stringify({ type: "error", status: error.status, ...asRecord(error.body) }))
        return
      }
      case "warmup":
        last = answer.responseId
        for (const e of answer.events) ws.send(JSON.stringify(e))
        return
      case "disconnect": {
        const events = answer.handler.events(answer.render)
        for (const e of events.slice(0, Math.max(1, Math.floor(events.length / 2)))) ws.send(JSON.stringify(e))
        ws.terminate()
        return
      }
      case "turn":
        last = answer.responseId
        for (const e of answer.handler.events(answer.render)) ws.send(JSON.stringify(e))
    }
  })
}
