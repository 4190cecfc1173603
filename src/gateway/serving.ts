/**
 * What a request is served with, in two values. `ServingConfig` is the configuration in force: settings, routes
 * and upstreams, the environment keys are read from, the user's model rows; the gateway reads it once when a
 * request arrives and hands that one value down the request's path, so a reload can swap it between requests.
 * `GatewayShared` is what lives across requests for the gateway's lifetime: the clock, the token counter, the
 * change logs of fitted conversations, and the hooks.
 */
import type { GatewayConfig } from "../config/gateway.js"
import type { TokenCounter } from "../history/tokens.js"
import type { ModelInfo } from "../models/types.js"
import type { CircuitBreaker } from "./breaker.js"
import type { ConversationChangeLogs } from "./change-logs.js"
import type { GatewayRecord } from "./record.js"
import type { GatewaySettings } from "./settings.js"

/** The configuration a request is served with, read once per request. */
export interface ServingConfig {
  readonly settings: GatewaySettings
  /** The config's `gateway` section (routes and upstreams); absent: every request goes to its own provider. */
  readonly config: GatewayConfig | undefined
  /** Where upstream key variables are read. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** User model rows (limits of upstream models the catalog does not know). */
  readonly models: readonly ModelInfo[]
}

/** The gateway's state and hooks shared by every request, for its lifetime. */
export interface GatewayShared {
  /** Milliseconds since the epoch: arrival, first byte and end of each request. */
  readonly clock: () => number
  /** The token counter fitting and counting use (loaded on first use, once per gateway). */
  readonly counter: () => Promise<TokenCounter>
  /** The change logs of fitted conversations, so a conversation's cuts stay where they were. */
  readonly changeLogs: ConversationChangeLogs
  /** The circuit breaker of the upstreams routes fall back between (its state in the state store). */
  readonly breaker: CircuitBreaker
  /** Extra headers for a successful HTTP answer, asked with the early record (GatewayOptions.answerHeaders). */
  readonly answerHeaders: ((early: GatewayRecord) => Promise<Record<string, string>>) | undefined
}
