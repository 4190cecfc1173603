/**
 * The WebSocket same-format pipeline: a connection whose first `response.create` went to a same-format route is
 * relayed to one WebSocket connection to that upstream, frame for frame, so `previous_response_id` keeps naming
 * responses the upstream connection holds. Each `response.create` is one request: its frames are decoded on the
 * side (the one event mapping, outcome.ts) until the upstream's terminal event, and one record is made of it.
 */
import type { RawData, WebSocket } from "ws"
import { lazyModule } from "../lazy-module.js"
import { formatModule } from "../providers/formats.js"
import type { StreamEvent } from "../providers/stream.js"
import { laterConversationKey } from "./conversation-key.js"
import { type AnswerFacts, type ClientSide, outcomeOf, type RecordedBody, withEvents } from "./outcome.js"
import { recordOf } from "./record.js"
import { redactErrorFrame } from "./secrets.js"
import type { ServingConfig } from "./serving.js"
import type { SocketConnection, SocketGateway, SocketRequest } from "./socket-request.js"
import { socketErrorEvent } from "./socket-translate.js"

const wsModule = lazyModule<typeof import("ws")>("ws")

/** The Responses stream events that end a response. */
const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete", "error"])

/** One relayed response on its way: the request, and its outcome as its frames come. */
interface Relayed {
  request: SocketRequest
  sent?: RecordedBody
  facts: AnswerFacts
  client: ClientSide
}

/**
 * The same-format side of one client connection: takes each `response.create` (its request decided, its text as
 * the client sent it, the configuration it arrived under) and relays it on the connection's upstream WebSocket,
 * opened for the first one.
 */
export function socketRelay(
  client: WebSocket,
  connection: SocketConnection,
  gateway: SocketGateway,
): (request: SocketRequest, text: string, serving: ServingConfig) => Promise<void> {
  const { clock } = gateway.shared
  let upstream: WebSocket | undefined
  let open: Promise<void> | undefined
  /** Every secret of the connection's responses: out of the records and of the errors relayed. */
  const secrets = new Set<string | undefined>()
  /** The upstream's key when it is the gateway's own (keyEnv): out of every message, not only the errors. */
  const ownKeys: string[] = []
  const pending: Relayed[] = []
  const decoder = formatModule("openai-responses").createDecoder({})
  /** The connection's conversation: its header, else worked out from its first response once that ended. */
  let conversation: string | undefined
  const finish = (relayed: Relayed) => {
    const learned = { facts: relayed.facts, dropped: [], ...(relayed.sent ? { sent: relayed.sent } : {}) }
    const outcome = outcomeOf(relayed.client, learned, clock())
    gateway.finish(() => {
      conversation ??=
        relayed.request.conversationKey ??
        laterConversationKey(connection.req.headers, "openai-responses", relayed.request.body, {})
      return recordOf({ ...relayed.request, conversationKey: conversation }, outcome)
    })
  }
  const onFrame = (frame: RawData) => {
    const payload = String(frame)
    const out = redactErrorFrame(payload, [...secrets], ownKeys)
    client.send(out)
    const current = pending[0]
    if (!current) return
    current.client.firstByteAt ??= clock()
    current.client.bytes += Buffer.byteLength(out)
    let parsed: Record<string, unknown> | undefined
    try {
      parsed = JSON.parse(payload) as Record<string, unknown>
    } catch {
      return
    }
    if (typeof parsed !== "object" || parsed === null) return
    const events: StreamEvent[] = []
    try {
      // The record's copy: a frame its decoder cannot read leaves the record short, never the relay.
      decoder.push(parsed, events)
    } catch {}
    current.facts = withEvents(current.facts, events)
    if (TERMINAL.has(String(parsed.type))) finish(pending.shift()!)
  }
  /** Responses the connection's end cut short: each still gets its record. */
  const cutAll = () => {
    for (const relayed of pending.splice(0)) {
      const error = { kind: "network", message: "the connection closed before the response ended" }
      finish({ ...relayed, facts: { ...relayed.facts, error: relayed.facts.error ?? error } })
    }
  }
  return async (request, text, serving) => {
    const relayed: Relayed = { request, facts: {}, client: { status: 101, bytes: 0 } }
    for (const secret of request.secrets) secrets.add(secret)
    pending.push(relayed)
    if (!open) {
      const { target } = request
      if (target.ownKey !== undefined) ownKeys.push(target.ownKey)
      const { "content-type": _type, ...headers } = target.endpoint.headers
      const socket = new (wsModule().WebSocket)(target.url!, {
        headers,
        handshakeTimeout: serving.settings.connectTimeoutMs,
      })
      upstream = socket
      open = new Promise<void>((resolve, reject) => {
        socket.once("open", () => resolve())
        socket.once("error", reject)
      })
      socket.on("message", onFrame)
      // After `open`, a failure of the upstream connection is followed by its close, which closes the client's.
      socket.on("error", () => {})
      socket.on("close", () => {
        cutAll()
        client.close()
      })
      client.on("close", () => {
        cutAll()
        socket.terminate()
      })
    }
    try {
      await open
    } catch (error) {
      const told = {
        kind: "network" as const,
        message: `the upstream ${request.target.upstream.name} WebSocket failed: ${(error as Error).message}`,
      }
      const frame = JSON.stringify(socketErrorEvent(told, 502))
      client.send(frame)
      client.close()
      // Recorded once: with this failure, unless the connection's close already recorded it as cut.
      const at = pending.indexOf(relayed)
      if (at < 0) return
      pending.splice(at, 1)
      finish({ ...relayed, client: { status: 502, bytes: Buffer.byteLength(frame), firstByteAt: clock(), told } })
      return
    }
    const out =
      request.route.model !== request.model ? JSON.stringify({ ...request.body!, model: request.route.model }) : text
    relayed.sent = { url: request.target.url!, headers: {}, body: JSON.parse(out) }
    upstream!.send(out)
  }
}
