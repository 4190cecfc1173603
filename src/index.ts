// The public API of promptline: what a host needs to gather context, build prompts, fit a history, encode
// requests, decode answers and handle errors. Named re-exports only; each is listed in docs/api.md.
// The agent, the replay server, the gateway, the cache explainer and traces, the inspect report and the AI SDK
// adapter are subpath entries (promptline/agent, promptline/replay, promptline/gateway, promptline/cache,
// promptline/inspect, promptline/ai-sdk; package.json `exports`); the rest is internal.

// Gathering context
export { activate, InstructionTracker } from "./context/activate.js"
export { type GatherOptions, type GatherResult, gather } from "./context/gather.js"
export {
  createContext,
  type InstructionFile,
  loadContext,
  type McpServerInfo,
  type PromptContext,
  type PromptContextInput,
  parseContext,
  type SkillInfo,
} from "./context/prompt-context.js"
export type { GatherReport } from "./context/report.js"
// Errors and diagnostics
export { type Diagnostic, type DiagnosticLevel, formatDiagnostic } from "./diagnostics.js"
export { type ErrorCode, type FieldIssue, FileError, PromptlineError, ValidationError } from "./errors.js"
// Fitting the history
export { type Budget, budgetFor } from "./history/budget.js"
export { ChangeLog } from "./history/change-log.js"
export type { Summarize } from "./history/compact.js"
export {
  ContextManager,
  type ContextManagerOptions,
  type FitRequest,
  type FitResult,
  type FitTokens,
} from "./history/context-manager.js"
export type { Edit } from "./history/edits.js"
export { parseHistory, readHistory } from "./history/history-file.js"
export {
  type Block,
  type CompactionBlock,
  type ImageBlock,
  type Message,
  type RedactedThinkingBlock,
  type Role,
  type TextBlock,
  type ThinkingBlock,
  type ToolResultBlock,
  type ToolUseBlock,
  textOf,
} from "./history/message.js"
export { COMPACTION_DEFAULTS, type CompactionOptions } from "./history/staged.js"
export { TokenCounter } from "./history/tokens.js"
// Models
export { MODEL_CATALOG } from "./models/catalog.js"
export { type ResolvedModel, type ResolveOptions, resolveModel } from "./models/resolve.js"
export type { ModelInfo, ReasoningEffort, TokenizerFamily, WireFormat } from "./models/types.js"
export { wireFormatOf } from "./models/wire.js"
// Building prompts
export {
  type BuilderOptions,
  type BuiltPrompt,
  build,
  type Explanation,
  explain,
  PromptBuilder,
} from "./prompt/builder.js"
export { type Component, data, defineComponent, tpl } from "./prompt/component.js"
export { BUILTIN_COMPONENTS } from "./prompt/components/index.js"
export { defineVariant, type Variant } from "./prompt/variant.js"
export { BUILTIN_VARIANTS } from "./prompt/variants/index.js"
// Decoding answers
export { type AccumulateOptions, Accumulator, type AssembledResponse, accumulate } from "./providers/accumulate.js"
// Encoding requests
export type { CacheSettings } from "./providers/cache.js"
export {
  DecodedStream,
  decodeOptionsFor,
  decodeResponse,
  decodeResponses,
  decodeStream,
  responseBodyEvents,
  StreamDecoder,
} from "./providers/decode.js"
export type { WireFormatDescriptor } from "./providers/descriptor.js"
export { wireFormats } from "./providers/descriptors.js"
export { encodeRequest } from "./providers/encode.js"
// Provider errors
export {
  classifyHttpError,
  isContextOverflow,
  ProviderError,
  type ProviderErrorKind,
} from "./providers/errors.js"
export { type RequestBodies, registerWireFormat, WIRE_FORMAT_MODULES } from "./providers/formats.js"
export { portHistory } from "./providers/portability.js"
export type {
  DecodeOptions,
  DecodeStats,
  StopReason,
  StreamErrorEvent,
  StreamEvent,
  Usage,
} from "./providers/stream.js"
export type {
  EncodeInput,
  EncodeOptions,
  EncodeResult,
  PromptInput,
  ThinkingOptions,
  ToolChoice,
  WireFormatModule,
} from "./providers/types.js"
export { parseXmlToolCalls, withXmlToolCalls, XmlToolCallParser } from "./providers/xml-parser.js"
// Tools
export { BUILTIN_TOOLS } from "./tools/catalog/index.js"
export { mcpToolSpecs } from "./tools/mcp.js"
export { toNativeTools } from "./tools/native.js"
export type { NativeToolDefinition } from "./tools/native-types.js"
export { DeferredTools, type ToolSearchSettings } from "./tools/search/index.js"
export { selectTools } from "./tools/select.js"
export { defineTool, type EnabledTool, type JsonSchema, type ToolKind, type ToolSpec } from "./tools/spec.js"
export type { ToolCalling } from "./tools/tool-calling.js"
export { renderXmlToolDocs } from "./tools/xml.js"
