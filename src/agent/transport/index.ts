/** The agent's transport: the provider registry, one request over HTTP, token counting, the Responses WebSocket, retries. */
export { COUNTING_FORMATS, countingRequest, countTokens } from "./count.js"
export * from "./endpoints.js"
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
