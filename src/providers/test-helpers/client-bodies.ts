/**
 * Request bodies as real clients send them, one arbitrary per top-level field of each client format's request
 * table (the tables are checked against the official SDK types, so a field an SDK gains fails `tsc` here until it
 * has a value). Modeled fields take the values real clients send (Claude Code's adaptive thinking and deferred
 * tools, Gemini CLI's JSON output, Codex's `store: false`, …); other fields a plausible value.
 */
import fc from "fast-check"
import type { ANTHROPIC_REQUEST_FIELDS } from "../anthropic/request-shape.js"
import type { GEMINI_CONFIG_PLACES, GEMINI_REQUEST_FIELDS } from "../gemini/request-shape.js"
import type { OPENAI_CHAT_REQUEST_FIELDS } from "../openai-chat/request-shape.js"
import type { OPENAI_RESPONSES_REQUEST_FIELDS } from "../openai-responses/request-shape.js"

/** One arbitrary per field. */
type Fields<K extends string> = Record<K, fc.Arbitrary<unknown>>

/** A JSON schema a structured output or a tool takes. */
export const SCHEMA = {
  type: "object",
  properties: { route: { type: "string", enum: ["flash", "pro"] }, reason: { type: "string" } },
  required: ["route", "reason"],
  additionalProperties: false,
}

/** The same schema in Gemini's OpenAPI subset. */
const OPENAPI_SCHEMA = {
  type: "OBJECT",
  properties: { route: { type: "STRING", enum: ["flash", "pro"] }, reason: { type: "STRING" } },
  required: ["route", "reason"],
}

/** The description of Claude Code's placeholder tool (it is declared deferred, and must never be called). */
export const PLACEHOLDER_DESCRIPTION = "Placeholder for deferred tools. Never call this tool."

const some = (...values: unknown[]): fc.Arbitrary<unknown> => fc.constantFrom(...values)
const generic = some({ setting: "x" })

/** Tools a client declares: loaded ones, deferred ones and a placeholder, in any mix. */
function toolList(
  loaded: unknown,
  deferred: unknown,
  placeholder: unknown,
  search: unknown[],
): fc.Arbitrary<unknown[]> {
  return fc
    .record({
      loaded: fc.boolean(),
      deferred: fc.boolean(),
      placeholder: fc.boolean(),
      search: fc.integer({ min: -1, max: search.length - 1 }),
    })
    .map((c) => [
      ...(c.loaded ? [loaded] : []),
      ...(c.deferred ? [deferred] : []),
      ...(c.placeholder ? [placeholder] : []),
      ...(c.search >= 0 ? [search[c.search]!] : []),
    ])
}

const anthropicTool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  name,
  description: `The ${name} tool.`,
  input_schema: SCHEMA,
  ...extra,
})

/** Every top-level field of an Anthropic Messages request (and `temperature`, which older SDKs still send). */
export const ANTHROPIC_FIELDS = {
  model: some("client-model"),
  max_tokens: some(64_000, 1000),
  messages: some([{ role: "user", content: "Route this request." }]),
  system: some("Be brief.", [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }]),
  tools: toolList(
    anthropicTool("read"),
    anthropicTool("mcp__docs__find", { defer_loading: true }),
    { ...anthropicTool("placeholder"), description: PLACEHOLDER_DESCRIPTION, defer_loading: true },
    [
      { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      { type: "tool_search_tool_regex", name: "tool_search_tool_regex" },
    ],
  ),
  tool_choice: some(
    { type: "auto" },
    { type: "any" },
    { type: "tool", name: "read" },
    { type: "tool", name: "mcp__docs__find" },
    { type: "none" },
    { type: "auto", disable_parallel_tool_use: true },
  ),
  thinking: some({ type: "adaptive" }, { type: "enabled", budget_tokens: 2048 }, { type: "disabled" }),
  stream: fc.boolean(),
  stop_sequences: some(["END"]),
  output_config: some(
    { effort: "high" },
    { effort: "max", format: { type: "json_schema", schema: SCHEMA } },
    { format: { type: "json_schema", schema: SCHEMA } },
  ),
  metadata: some({ user_id: "u" }),
  cache_control: some({ type: "ephemeral" }),
  container: some("container_1"),
  context_management: some(
    { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
    { edits: [{ type: "clear_tool_uses_20250919" }, { type: "compact_20260112", instructions: "Keep the plan." }] },
  ),
  compaction: generic,
  diagnostics: generic,
  inference_geo: some("us"),
  service_tier: some("auto"),
  speed: some("fast"),
  mcp_servers: some([{ type: "url", url: "https://mcp.example.invalid", name: "docs" }]),
  output_format: some({ type: "json_schema", schema: SCHEMA }),
  billing_policy: generic,
  fallback_credit_token: some("token"),
  fallbacks: some([{ model: "other" }]),
  thread: generic,
  betas: some(["context-management-2025-06-27"]),
  user_profile_id: some("profile"),
  workspace_id: some("workspace"),
  temperature: some(0.5),
} satisfies Fields<keyof typeof ANTHROPIC_REQUEST_FIELDS | "temperature">

const chatTool = (name: string) => ({
  type: "function",
  function: { name, description: `The ${name} tool.`, parameters: SCHEMA },
})

/** Every top-level field of an OpenAI Chat Completions request. */
export const CHAT_FIELDS = {
  model: some("client-model"),
  messages: some([
    { role: "system", content: "Be brief." },
    { role: "user", content: "Route this request." },
  ]),
  tools: fc.constantFrom([chatTool("read")], [chatTool("read"), chatTool("never")]),
  functions: some([{ name: "legacy", parameters: SCHEMA }]),
  tool_choice: some("auto", "required", "none", { type: "function", function: { name: "read" } }),
  function_call: some("auto"),
  stream: fc.boolean(),
  stream_options: some({ include_usage: true }),
  max_completion_tokens: some(4096),
  max_tokens: some(2048),
  reasoning_effort: some("none", "low", "high"),
  parallel_tool_calls: fc.boolean(),
  audio: generic,
  frequency_penalty: some(0.5),
  logit_bias: some({ "50256": -100 }),
  logprobs: some(true),
  metadata: some({ run: "1" }),
  modalities: some(["text"]),
  moderation: generic,
  n: some(1, 2),
  prediction: some({ type: "content", content: "x" }),
  presence_penalty: some(0.5),
  prompt_cache_key: some("conversation-1"),
  prompt_cache_options: generic,
  prompt_cache_retention: some("24h"),
  response_format: some(
    { type: "json_object" },
    { type: "json_schema", json_schema: { name: "route", schema: SCHEMA, strict: true } },
  ),
  safety_identifier: some("user-1"),
  seed: some(7),
  service_tier: some("auto"),
  stop: some(["END"]),
  store: fc.boolean(),
  temperature: some(0.2),
  top_logprobs: some(2),
  top_p: some(0.9),
  user: some("user-1"),
  verbosity: some("low"),
  web_search_options: some({}),
} satisfies Fields<keyof typeof OPENAI_CHAT_REQUEST_FIELDS>

const responsesTool = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "function",
  name,
  description: `The ${name} tool.`,
  parameters: SCHEMA,
  strict: false,
  ...extra,
})

/** Every top-level field of an OpenAI Responses request. */
export const RESPONSES_FIELDS = {
  model: some("client-model"),
  input: some([{ role: "user", content: "Route this request." }]),
  instructions: some("Be brief."),
  tools: toolList(
    responsesTool("read"),
    responsesTool("mcp__docs__find", { defer_loading: true }),
    responsesTool("placeholder", { description: PLACEHOLDER_DESCRIPTION }),
    [{ type: "tool_search" }],
  ),
  tool_choice: some("auto", "required", "none", { type: "function", name: "read" }),
  parallel_tool_calls: fc.boolean(),
  stream: fc.boolean(),
  reasoning: some({ effort: "none" }, { effort: "low", summary: "auto" }, { effort: "high", summary: "detailed" }),
  include: some(["reasoning.encrypted_content"]),
  store: fc.boolean(),
  previous_response_id: some("resp_1"),
  max_output_tokens: some(8192),
  background: some(false, true),
  context_management: some([{ type: "compaction", compact_threshold: 200_000 }]),
  conversation: some("conv_1"),
  metadata: some({ run: "1" }),
  moderation: generic,
  prompt: some({ id: "pmpt_1" }),
  prompt_cache_key: some("conversation-1"),
  prompt_cache_options: generic,
  prompt_cache_retention: some("24h"),
  safety_identifier: some("user-1"),
  service_tier: some("auto"),
  stream_options: some({ include_obfuscation: false }),
  temperature: some(0.2),
  text: some(
    { format: { type: "json_object" } },
    { format: { type: "json_schema", name: "route", schema: SCHEMA, strict: true }, verbosity: "low" },
  ),
  top_logprobs: some(2),
  top_p: some(0.9),
  truncation: some("auto"),
  user: some("user-1"),
} satisfies Fields<keyof typeof OPENAI_RESPONSES_REQUEST_FIELDS>

/** The generationConfig fields of the SDK's config (every one the wire puts under `generationConfig`). */
type GenerationField = {
  [K in keyof typeof GEMINI_CONFIG_PLACES]: (typeof GEMINI_CONFIG_PLACES)[K] extends "generationConfig" ? K : never
}[keyof typeof GEMINI_CONFIG_PLACES]

/** Every generationConfig field, as Gemini CLI and other clients set them. */
export const GENERATION_FIELDS = {
  temperature: some(0),
  topP: some(1),
  topK: some(40),
  candidateCount: some(1),
  maxOutputTokens: some(1024),
  stopSequences: some(["END"]),
  responseLogprobs: some(true),
  logprobs: some(2),
  presencePenalty: some(0.5),
  frequencyPenalty: some(0.5),
  seed: some(7),
  responseMimeType: some("application/json", "text/plain"),
  responseSchema: some(OPENAPI_SCHEMA),
  responseJsonSchema: some(SCHEMA),
  routingConfig: generic,
  modelSelectionConfig: generic,
  responseModalities: some(["TEXT"]),
  mediaResolution: some("MEDIA_RESOLUTION_LOW"),
  speechConfig: generic,
  audioTimestamp: some(true),
  thinkingConfig: some(
    { thinkingBudget: 0 },
    { thinkingBudget: -1, includeThoughts: true },
    { thinkingBudget: 512, includeThoughts: true },
    { thinkingLevel: "HIGH", includeThoughts: true },
  ),
  imageConfig: generic,
  enableEnhancedCivicAnswers: some(true),
} satisfies Fields<GenerationField>

/** Every top-level field of a Gemini generateContent body; `generationConfig` holds any mix of its fields. */
export const GEMINI_FIELDS = {
  contents: some([{ role: "user", parts: [{ text: "Route this request." }] }]),
  systemInstruction: some({ parts: [{ text: "Be brief." }] }),
  tools: some([{ functionDeclarations: [{ name: "read", description: "Reads.", parametersJsonSchema: SCHEMA }] }]),
  toolConfig: some(
    { functionCallingConfig: { mode: "AUTO" } },
    { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["read"] } },
    { functionCallingConfig: { mode: "NONE" } },
  ),
  generationConfig: fc.record(GENERATION_FIELDS, { requiredKeys: [] }),
  safetySettings: some([{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_NONE" }]),
  cachedContent: some("cachedContents/abc"),
  labels: some({ team: "a" }),
  modelArmorConfig: generic,
  serviceTier: some("standard"),
} satisfies Fields<keyof typeof GEMINI_REQUEST_FIELDS>

/** A body with any mix of a format's fields (the required ones always). */
export function bodies(
  fields: Record<string, fc.Arbitrary<unknown>>,
  required: readonly string[],
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(fields, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>
}

/** A body with every field of a format, each taking one of its values (the same one on every run). */
export function fullBody(fields: Record<string, fc.Arbitrary<unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, arb] of Object.entries(fields)) out[key] = fc.sample(arb, { seed: 1, numRuns: 1 })[0]
  return out
}
