// The public API of promptline: re-exports only.
export * from "./agent/approval.js"
export { agentSecretPolicy, childEnv, PROVIDER_KEY_ENV, type SecretEnvOptions } from "./agent/child-env.js"
export * from "./agent/events.js"
export * from "./agent/executors/index.js"
export { Agent, type AgentConfig, type RunResult, type SendRequest } from "./agent/loop.js"
export { McpPool } from "./agent/mcp-pool.js"
export * from "./agent/replay/index.js"
export * from "./agent/session.js"
export * from "./agent/transport/index.js"
export { type AllowedPath, type PathPolicy, type RefusedPath, resolvePath } from "./agent/workspace.js"
export * from "./context/index.js"
export * from "./context/prompt-context.js"
export * from "./diagnostics.js"
export * from "./errors.js"
export * from "./history/budget.js"
export * from "./history/change-log.js"
export * from "./history/compact.js"
export * from "./history/context-manager.js"
export * from "./history/dedup.js"
export * from "./history/edits.js"
export * from "./history/file-tracker.js"
export * from "./history/history-file.js"
export * from "./history/mask.js"
export * from "./history/message.js"
export * from "./history/prune.js"
export * from "./history/requests.js"
export * from "./history/staged.js"
export * from "./history/tokens.js"
export * from "./history/truncate.js"
export * from "./inspect/index.js"
export * from "./models/catalog.js"
export * from "./models/resolve.js"
export * from "./models/types.js"
export * from "./models/wire.js"
export * from "./prompt/builder.js"
export * from "./prompt/component.js"
export { BUILTIN_COMPONENTS } from "./prompt/components/index.js"
export { CONTINUATION_PROMPT } from "./prompt/continuation.js"
export { postProcess } from "./prompt/post-process.js"
export * from "./prompt/registry.js"
export { TemplateEngine, TemplateError, type TemplateStrictness } from "./prompt/template.js"
export * from "./prompt/variant.js"
export { BUILTIN_VARIANTS } from "./prompt/variants/index.js"
export * from "./providers/accumulate.js"
export { ANTHROPIC_COMPLETENESS, AnthropicDecoder, anthropicResponseEvents } from "./providers/anthropic/decode.js"
export * from "./providers/anthropic/encode.js"
export * from "./providers/cache.js"
export * from "./providers/completeness.js"
export * from "./providers/decode.js"
export { createDeepSeekDecoder, deepseekResponseEvents } from "./providers/deepseek/decode.js"
export * from "./providers/deepseek/encode.js"
export * from "./providers/encode.js"
export * from "./providers/errors.js"
export { GEMINI_COMPLETENESS, GeminiDecoder, geminiResponseEvents } from "./providers/gemini/decode.js"
export * from "./providers/gemini/encode.js"
export {
  CHAT_COMPLETENESS,
  type ChatDialect,
  chatResponseEvents,
  OpenAIChatDecoder,
} from "./providers/openai-chat/decode.js"
export * from "./providers/openai-chat/encode.js"
export {
  OpenAIResponsesDecoder,
  RESPONSES_COMPLETENESS,
  responsesResponseEvents,
} from "./providers/openai-responses/decode.js"
export * from "./providers/openai-responses/encode.js"
export * from "./providers/portability.js"
export * from "./providers/sse.js"
export type {
  DecodeOptions,
  DecodeStats,
  PayloadDecoder,
  StopReason,
  StreamErrorEvent,
  StreamErrorKind,
  StreamEvent,
  Usage,
} from "./providers/stream.js"
export * from "./providers/xml-dialect.js"
export * from "./secret-env.js"
export * from "./tools/catalog/index.js"
export * from "./tools/mcp.js"
export * from "./tools/native.js"
export * from "./tools/select.js"
export * from "./tools/spec.js"
export * from "./tools/xml.js"
export * from "./tools/xml-parser.js"
