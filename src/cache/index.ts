/** The cache explainer and traces: what the gateway and `promptline run` call. */
export type { CacheLayout, LayoutSegment } from "./cache-layout.js"
export { cacheLayout } from "./cache-layout.js"
export type { ConversationKeys } from "./conversation.js"
export { conversationKeys } from "./conversation.js"
export type { CacheRequest, CacheTokens, CacheVerdict, ExplainOptions, MissCause } from "./explain.js"
export { CacheExplainer, explainCache } from "./explain.js"
export { CACHE_HEADER, cacheHeader, describeCause, describeVerdict } from "./header.js"
export type { CacheScheme } from "./schemes.js"
export { CACHE_SCHEMES } from "./schemes.js"
export { defaultTraceDir } from "./trace-dir.js"
export type { ConversationSummary } from "./trace-read.js"
export { bodyOf, readTraceFile, summarizeTraces } from "./trace-read.js"
export type {
  TracedMessage,
  TraceInput,
  TraceLine,
  TraceRecord,
  TraceRetention,
  TraceStoreOptions,
} from "./trace-store.js"
export { TraceStore } from "./trace-store.js"
