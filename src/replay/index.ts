/** The replay server: answers LLM requests from a script, in each provider's real wire format. */
export type { Divergence, RecordedRequest, RequestOutcome } from "./replayer.js"
export {
  loadReplayScript,
  parseReplayScript,
  type ReplayFault,
  type ReplayScript,
  type ReplayScriptInput,
  replayScriptSchema,
  type ScriptToolCall,
  type ScriptTurn,
  type ScriptUsage,
  scriptWorkspace,
  type TurnExpectation,
} from "./script.js"
export { ReplayError, ReplayServer, type ReplayServerOptions, type ReplayUrls, startReplayServer } from "./server.js"
export type { ReplayFormat } from "./view.js"
