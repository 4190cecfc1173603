/** What the WebSocket side of a gateway needs from the gateway. */

import type { IncomingMessage } from "node:http"
import type { GatewayConfig } from "../config/gateway.js"
import type { TokenCounter } from "../history/tokens.js"
import type { ModelInfo } from "../models/types.js"
import type { ConversationChangeLogs } from "./change-logs.js"
import type { GatewayRecord } from "./record.js"
import type { RoutePlan } from "./routing.js"
import { redactHeaders } from "./secrets.js"
import type { GatewaySettings } from "./settings.js"

/** The gateway's settings, config and shared state, as its WebSocket connections use them. */
export interface SocketContext {
  settings: GatewaySettings
  config: GatewayConfig | undefined
  env: Readonly<Record<string, string | undefined>>
  /** User model rows (limits of upstream models the catalog does not know). */
  models: readonly ModelInfo[]
  /** The token counter translating with `fit` uses (loaded once per gateway). */
  counter: () => Promise<TokenCounter>
  /** The change logs of fitted conversations. */
  changeLogs: ConversationChangeLogs
  clock: () => number
  nextSeq: () => number
  /** Hears of each finished response (the record, the span, the log line). */
  finish: (record: GatewayRecord) => void
  /** A response began (counted as active, so a closing gateway lets it finish); returns its end. */
  began: () => () => void
  /** Hears of a failure no frame could report (a socket or frame the gateway could not serve); the gateway goes on. */
  report: (error: unknown, where: string) => void
}

/** The record of one `response.create` over a WebSocket, both modes alike; its outcome is filled in after. */
export function socketRecord(
  turn: Pick<GatewayRecord, "seq" | "startedAt" | "latencyMs" | "model" | "status" | "dropped" | "conversationKey">,
  plan: RoutePlan,
  request: { req: IncomingMessage; url: URL; event: Record<string, unknown> },
): GatewayRecord {
  return {
    ...turn,
    clientFormat: "openai-responses",
    transport: "websocket",
    upstream: {
      name: plan.upstream.name,
      provider: plan.upstream.provider,
      format: plan.upstream.format,
      model: plan.model,
    },
    mode: plan.mode,
    received: { url: request.url.pathname, headers: redactHeaders(request.req.headers), body: request.event },
  }
}
