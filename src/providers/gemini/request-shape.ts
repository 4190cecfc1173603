/**
 * The Gemini `generateContent` REST body as a server reads it. The SDK's call shape (`model`, `contents`,
 * `config`) is not what goes over the wire: each `config` field lands at the body's top level, inside
 * `generationConfig`, or stays in the client; the table below says where, checked against the SDK's type by
 * request-shape.test.ts.
 * The REST API takes every field name in camelCase or snake_case (`systemInstruction`, `system_instruction`).
 */
import type { Role } from "../../history/message.js"
import { type FieldUse, recordOf } from "../request-shape.js"

/** Where a field of the SDK's `GenerateContentConfig` goes in the REST body. */
export type GeminiConfigPlace = "body" | "generationConfig" | "client"

/** Every field of `GenerateContentConfig` and where it goes on the wire. */
export const GEMINI_CONFIG_PLACES = {
  systemInstruction: "body",
  tools: "body",
  toolConfig: "body",
  safetySettings: "body",
  cachedContent: "body",
  labels: "body",
  modelArmorConfig: "body",
  serviceTier: "body",
  temperature: "generationConfig",
  topP: "generationConfig",
  topK: "generationConfig",
  candidateCount: "generationConfig",
  maxOutputTokens: "generationConfig",
  stopSequences: "generationConfig",
  responseLogprobs: "generationConfig",
  logprobs: "generationConfig",
  presencePenalty: "generationConfig",
  frequencyPenalty: "generationConfig",
  seed: "generationConfig",
  responseMimeType: "generationConfig",
  responseSchema: "generationConfig",
  responseJsonSchema: "generationConfig",
  routingConfig: "generationConfig",
  modelSelectionConfig: "generationConfig",
  responseModalities: "generationConfig",
  mediaResolution: "generationConfig",
  speechConfig: "generationConfig",
  audioTimestamp: "generationConfig",
  thinkingConfig: "generationConfig",
  imageConfig: "generationConfig",
  enableEnhancedCivicAnswers: "generationConfig",
  httpOptions: "client",
  abortSignal: "client",
  automaticFunctionCalling: "client",
} as const satisfies Record<string, GeminiConfigPlace>

type BodyField = {
  [K in keyof typeof GEMINI_CONFIG_PLACES]: (typeof GEMINI_CONFIG_PLACES)[K] extends "body" ? K : never
}[keyof typeof GEMINI_CONFIG_PLACES]

/** Every top-level field of the REST body (in camelCase), and how a server treats it. */
export const GEMINI_REQUEST_FIELDS = {
  contents: "required",
  systemInstruction: "read",
  tools: "read",
  toolConfig: "read",
  generationConfig: "read",
  safetySettings: "accepted",
  cachedContent: "accepted",
  labels: "accepted",
  modelArmorConfig: "accepted",
  serviceTier: "accepted",
} as const satisfies Record<BodyField | "contents" | "generationConfig", FieldUse>

/** Every field of a content part; the kind of part is the field it sets (`thought` marks a text part as reasoning). */
export const GEMINI_PART_FIELDS = {
  text: "read",
  thought: "read",
  thoughtSignature: "read",
  inlineData: "read",
  functionCall: "read",
  functionResponse: "read",
  fileData: "accepted",
  executableCode: "accepted",
  codeExecutionResult: "accepted",
  videoMetadata: "accepted",
  mediaResolution: "accepted",
  toolCall: "accepted",
  toolResponse: "accepted",
  partMetadata: "accepted",
} as const satisfies Record<string, FieldUse>

/** The roles of `contents` and the internal role each becomes (Gemini has no system turn). */
export const GEMINI_ROLES = { user: "user", model: "assistant" } as const satisfies Record<string, Role>

/** `camelCase` → `snake_case`, as the REST API also spells every field. */
export function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)
}

/** A field of a Gemini REST object under its camelCase or its snake_case name. */
export function geminiField(record: Record<string, unknown> | undefined, camel: string): unknown {
  if (record === undefined) return undefined
  return record[camel] ?? record[snakeCase(camel)]
}

/** The top-level fields of a Gemini body that the API does not define, in either spelling, sorted. */
export function geminiUnknownFields(body: Record<string, unknown>): string[] {
  const known = new Set(Object.keys(GEMINI_REQUEST_FIELDS).flatMap((k) => [k, snakeCase(k)]))
  return Object.keys(body)
    .filter((k) => !known.has(k))
    .sort()
}

/** What makes a Gemini body malformed, in the API's own wording; empty when it is fine. */
export function checkGeminiRequest(body: Record<string, unknown>): string[] {
  const problems: string[] = []
  const contents = body.contents
  if (!Array.isArray(contents) || contents.length === 0) problems.push("contents: at least one content is required")
  const list: unknown[] = Array.isArray(contents) ? contents : []
  list.forEach((c, i) => {
    const content = recordOf(c)
    if (content?.role !== undefined && !Object.hasOwn(GEMINI_ROLES, String(content.role)))
      problems.push(`contents[${i}].role: must be "user" or "model"`)
    if (!Array.isArray(content?.parts) || content.parts.length === 0)
      problems.push(`contents[${i}].parts: at least one part is required`)
  })
  if (body.tools !== undefined && !Array.isArray(body.tools)) problems.push("tools: must be a list")
  return problems
}
