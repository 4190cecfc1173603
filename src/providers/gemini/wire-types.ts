/**
 * The Gemini generateContent request body (REST form) as promptline writes it, declared in our own words so the
 * published types need no SDK. Narrow on purpose: only the fields the encoder writes; enum-valued fields are
 * their wire strings. wire-types.test.ts checks the parts stay assignable to the official SDK's types.
 */
import type { GeminiTool } from "../../tools/native-types.js"

/**
 * One part of a turn. Gemini's parts are one-of by field, so every field is optional: text (a thought when
 * `thought` is set), inline image bytes, a function call or a function's response; `thoughtSignature` rides on
 * the part it came with.
 */
export interface Part {
  text?: string
  thought?: boolean
  thoughtSignature?: string
  inlineData?: { mimeType?: string; data?: string }
  functionCall?: { name?: string; args?: Record<string, unknown> }
  functionResponse?: { name?: string; response?: Record<string, unknown> }
}

/** A turn: the user's or the model's parts (the system instruction has no role). */
export interface Content {
  role?: "user" | "model"
  parts?: Part[]
}

/** How the model may call functions: `ANY` forces a call (of `allowedFunctionNames` when given). */
export type FunctionCallingConfigMode = "MODE_UNSPECIFIED" | "AUTO" | "ANY" | "NONE" | "VALIDATED"

/** The function calling settings of a request. */
export interface ToolConfig {
  functionCallingConfig?: { mode?: FunctionCallingConfigMode; allowedFunctionNames?: string[] }
}

/** Gemini 3's thinking levels. */
export type ThinkingLevel = "THINKING_LEVEL_UNSPECIFIED" | "MINIMAL" | "LOW" | "MEDIUM" | "HIGH"

/** Thinking: a token budget (Gemini 2.5; 0 turns it off) or a level (Gemini 3), and whether thoughts come back. */
export interface ThinkingConfig {
  includeThoughts?: boolean
  thinkingBudget?: number
  thinkingLevel?: ThinkingLevel
}

/** Output limit, temperature, thinking and structured output. */
export interface GenerationConfig {
  maxOutputTokens?: number
  temperature?: number
  thinkingConfig?: ThinkingConfig
  /** `application/json` for JSON output. */
  responseMimeType?: string
  /** The JSON Schema the JSON output matches. */
  responseJsonSchema?: Record<string, unknown>
}

/** A generateContent request body (REST form); the model and the streaming choice go in the URL. */
export type GeminiRequest = {
  contents: Content[]
  systemInstruction?: Content
  tools?: GeminiTool[]
  toolConfig?: ToolConfig
  generationConfig?: GenerationConfig
}
