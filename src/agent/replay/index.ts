/** The replay server: answers LLM requests from a script, in each provider's real wire format. */
export type { Failure, FailureKind, FormatHandler } from "./format.js"
export type { Answer, Divergence, RecordedRequest, RequestOutcome } from "./replayer.js"
export { FORMAT_HANDLERS, Replayer, type ReplayerOptions } from "./replayer.js"
export type { ResolvedCall, ResolvedTurn, ResolvedUsage } from "./resolve.js"
export { resolveTurn } from "./resolve.js"
export * from "./script.js"
export {
  ReplayError,
  ReplayServer,
  type ReplayServerOptions,
  type ReplayUrls,
  routeOf,
  startReplayServer,
} from "./server.js"
export type { ReplayFormat, RequestView, ToolResultView } from "./view.js"
export { parseXmlToolResults, renderXmlCall, xmlTurnText } from "./xml-calls.js"
