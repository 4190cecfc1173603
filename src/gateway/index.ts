/** The gateway: `promptline serve` as a library, putting the context engine between any agent and any provider. */

export type { UsageTotals } from "../cache/usage.js"
export { usageLine } from "../cache/usage-text.js"
export type {
  FallbackConfig,
  GatewayConfig,
  RouteConfig,
  RouteLinkConfig,
  StateStoreConfig,
  UpstreamConfig,
} from "../config/gateway.js"
export type { Cost, CostSum } from "../models/cost.js"
export { CONVERSATION_HEADER, conversationKey } from "./conversation-key.js"
export { errorAnswer, GatewayError } from "./errors.js"
export { ATTEMPTS_HEADER } from "./fallback.js"
export { logJson, logLine, recordCost } from "./log.js"
export { DROPPED_HEADER, type GatewayRecord, type RecordAttempt, type RecordUsage } from "./record.js"
export {
  type GatewayMode,
  PICK_SEPARATOR,
  planRoute,
  type RoutePlan,
  type RouteRefusal,
  type RouteStep,
  type Upstream,
} from "./routing.js"
export {
  Gateway,
  type GatewayOptions,
  type GatewayUrls,
  RESTART_ONLY,
  type ReloadResult,
  startGateway,
} from "./server.js"
export {
  type BreakerPolicy,
  DEFAULT_PORT,
  type FallbackPolicy,
  GatewayConfigError,
  type GatewaySettings,
  resolveSettings,
} from "./settings.js"
export {
  type CircuitState,
  MemoryStateStore,
  openStateStore,
  type StateStore,
  type StateStoreOptions,
  type StoredConversation,
  type UsageCounts,
  type UsageRow,
} from "./state-store.js"
export type { GatewayStatusSnapshot, RecentRequest, UpstreamCircuit, UpstreamHealth } from "./status.js"
export { STATUS_JSON_PATH, STATUS_PATH } from "./status-route.js"
export { spanAttributes, TRACER_NAME } from "./telemetry.js"
export { type GatewayTracing, gatewayTracing, traceInputOf } from "./traces.js"
