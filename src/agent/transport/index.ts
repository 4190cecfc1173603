/** The agent's transport: the provider registry and token counting (from providers/), one request over HTTP, the Responses WebSocket, retries. */
export { countingRequest, countTokens, hasCountingEndpoint } from "../../providers/count.js"
export * from "../../providers/endpoints.js"
export { type SendOptions, send } from "./http.js"
export { type ProviderResponse, ResponseConsumedError } from "./response.js"
export {
  abortableSleep,
  DEFAULT_RETRY_POLICY,
  type RetryInfo,
  type RetryOptions,
  type RetryPolicy,
  retryAfterInMessage,
  retryDelay,
  type Sleep,
  type WithRetryOptions,
  withRetry,
} from "./retry.js"
export {
  ResponsesSocket,
  type ResponsesSocketOptions,
  responseCreateEvent,
  SocketBusyError,
  type SocketSendOptions,
} from "./websocket.js"
