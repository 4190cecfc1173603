/**
 * A Gemini generateContent body a client sent, read back into promptline's terms (the inverse of
 * `encodeGemini`). The model and the streaming mode come from the URL (`RequestRoute`). What the API accepts but
 * promptline does not model is listed in `unmodeled` as JSON paths, spelled as the body spells them.
 */
import type { Diagnostic } from "../../diagnostics.js"
import { addSource } from "../carried.js"
import type {
  DecodedRequest,
  EncodeOptions,
  ReasoningEffort,
  RequestPart,
  RequestRoute,
  ResponseFormat,
  ThinkingOptions,
  ToolChoice,
} from "../types.js"
import { decodeContents } from "./contents-decode.js"
import { invalidRequest, keyIn, numberAt, otherKeys, type RecordOf, recordAt, stringAt } from "./fields.js"
import { GEMINI_REQUEST_FIELDS, geminiField } from "./request-shape.js"
import { decodeGeminiTools, fromGeminiSchema, normalizeJsonSchemaTypes } from "./tools.js"

/** Top-level fields the decoder reads; the API's other fields and unknown ones are unmodeled. */
const READ = new Set(
  Object.entries(GEMINI_REQUEST_FIELDS)
    .filter(([, use]) => use !== "accepted")
    .map(([name]) => name),
)

/** generationConfig fields the decoder reads. */
const GENERATION_READ = new Set([
  "maxOutputTokens",
  "temperature",
  "thinkingConfig",
  "responseMimeType",
  "responseSchema",
  "responseJsonSchema",
])

/** Where a part of the request was read from (the paths, spelled as the body spells them). */
type Sources = Partial<Record<RequestPart, string[]>>

/** Thinking levels → efforts. */
const EFFORTS: Record<string, ReasoningEffort> = { MINIMAL: "minimal", LOW: "low", MEDIUM: "medium", HIGH: "high" }

/** Reads a Gemini request body; throws `ProviderError("invalid-request")` naming the path of a malformed field. */
export function decodeGeminiRequest(body: unknown, route: RequestRoute = {}): DecodedRequest {
  const request = recordAt(body, "request body")
  const unmodeled: string[] = otherKeys(request, READ, "")
  const diagnostics: Diagnostic[] = []
  const sources: Sources = {}
  const contentsKey = keyIn(request, "contents") ?? "contents"
  const messages = decodeContents(request[contentsKey], contentsKey, { unmodeled, diagnostics })
  const tools = decodeGeminiTools(geminiField(request, "tools"), unmodeled)
  const options: EncodeOptions = { stream: route.stream === true }
  const choice = toolChoice(request, unmodeled)
  if (choice !== undefined) {
    options.toolChoice = choice
    addSource(sources, "toolChoice", keyIn(request, "toolConfig") ?? "toolConfig")
  }
  generation(request, options, unmodeled, sources)
  return {
    model: route.model ?? "",
    prompt: { text: systemText(request, unmodeled), tools, toolCalling: "native" },
    messages,
    options,
    unmodeled,
    sources,
    diagnostics,
  }
}

/** The system instruction's text: a string, or a content whose text parts are joined by blank lines. */
function systemText(request: RecordOf, unmodeled: string[]): string {
  const key = keyIn(request, "systemInstruction")
  if (key === undefined) return ""
  const value = request[key]
  if (typeof value === "string") return value
  const content = recordAt(value, key)
  const parts = content.parts
  if (parts === undefined) return ""
  if (!Array.isArray(parts)) throw invalidRequest(`${key}.parts`, "must be a list")
  const texts: string[] = []
  parts.forEach((p, i) => {
    const part = recordAt(p, `${key}.parts[${i}]`)
    if (typeof part.text === "string") texts.push(part.text)
    else if (part.text !== undefined) throw invalidRequest(`${key}.parts[${i}].text`, "must be a string")
    else unmodeled.push(`${key}.parts[${i}]`)
  })
  return texts.join("\n\n")
}

/** `toolConfig.functionCallingConfig` as a tool choice; other tool settings are unmodeled. */
function toolChoice(request: RecordOf, unmodeled: string[]): ToolChoice | undefined {
  const key = keyIn(request, "toolConfig")
  if (key === undefined) return undefined
  const config = recordAt(request[key], key)
  unmodeled.push(...otherKeys(config, new Set(["functionCallingConfig"]), key))
  const callingKey = keyIn(config, "functionCallingConfig")
  if (callingKey === undefined) return undefined
  const path = `${key}.${callingKey}`
  const calling = recordAt(config[callingKey], path)
  unmodeled.push(...otherKeys(calling, new Set(["mode", "allowedFunctionNames"]), path))
  const mode = stringAt(calling, "mode", path)
  const namesKey = keyIn(calling, "allowedFunctionNames")
  const names = namesKey === undefined ? undefined : calling[namesKey]
  if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== "string")))
    throw invalidRequest(`${path}.${namesKey}`, "must be a list of names")
  switch (mode) {
    case "AUTO":
      return "auto"
    case "NONE":
      return "none"
    case "ANY":
      if (names?.length === 1) return { name: names[0] as string }
      if (names !== undefined && names.length > 1) unmodeled.push(`${path}.${namesKey}`)
      return "required"
    case undefined:
    case "MODE_UNSPECIFIED":
      return undefined
    default:
      // VALIDATED (calls checked against the schema, text allowed) and modes still to come.
      unmodeled.push(`${path}.mode`)
      return "auto"
  }
}

/** generationConfig: output limit, temperature, thinking, structured output; its other fields are unmodeled. */
function generation(request: RecordOf, options: EncodeOptions, unmodeled: string[], sources: Sources): void {
  const key = keyIn(request, "generationConfig")
  if (key === undefined) return
  const config = recordAt(request[key], key)
  unmodeled.push(...otherKeys(config, GENERATION_READ, key))
  const maxTokens = numberAt(config, "maxOutputTokens", key)
  if (maxTokens !== undefined) {
    options.maxTokens = maxTokens
    addSource(sources, "maxTokens", `${key}.${keyIn(config, "maxOutputTokens")}`)
  }
  const temperature = numberAt(config, "temperature", key)
  if (temperature !== undefined) {
    options.temperature = temperature
    addSource(sources, "temperature", `${key}.${keyIn(config, "temperature")}`)
  }
  const format = responseFormat(config, key, unmodeled, sources)
  if (format) options.responseFormat = format
  const thinkingKey = keyIn(config, "thinkingConfig")
  if (thinkingKey === undefined) return
  const thinking = thinkingOptions(
    recordAt(config[thinkingKey], `${key}.${thinkingKey}`),
    `${key}.${thinkingKey}`,
    unmodeled,
  )
  if (thinking !== undefined) {
    options.thinking = thinking
    addSource(sources, "thinking", `${key}.${thinkingKey}`)
  }
}

/**
 * Structured output: `responseMimeType` `application/json`, with `responseJsonSchema` (JSON Schema) or
 * `responseSchema` (Gemini's OpenAPI subset, turned into JSON Schema) when given. `text/plain` is the default;
 * other MIME types (`text/x.enum`) and a schema without the JSON type are unmodeled.
 */
function responseFormat(
  config: RecordOf,
  at: string,
  unmodeled: string[],
  sources: Sources,
): ResponseFormat | undefined {
  const mimeKey = keyIn(config, "responseMimeType")
  const mime = stringAt(config, "responseMimeType", at)
  const schemas = (["responseJsonSchema", "responseSchema"] as const).flatMap((name) => {
    const k = keyIn(config, name)
    return k === undefined ? [] : [{ name, path: `${at}.${k}`, value: recordAt(config[k], `${at}.${k}`) }]
  })
  if (mime === undefined || mime === "text/plain") {
    unmodeled.push(...schemas.map((s) => s.path))
    return undefined
  }
  const mimePath = `${at}.${mimeKey}`
  if (mime !== "application/json") {
    unmodeled.push(mimePath, ...schemas.map((s) => s.path))
    return undefined
  }
  addSource(sources, "responseFormat", mimePath)
  // Both given: the API takes one; the JSON Schema is the precise one, the other is named.
  const [chosen, ...rest] = schemas
  unmodeled.push(...rest.map((s) => s.path))
  if (!chosen) return { type: "json" }
  addSource(sources, "responseFormat", chosen.path)
  addSource(sources, "responseFormat.schema", chosen.path)
  const schema =
    chosen.name === "responseJsonSchema" ? normalizeJsonSchemaTypes(chosen.value) : fromGeminiSchema(chosen.value)
  return { type: "json-schema", schema: schema as Record<string, unknown> }
}

/**
 * thinkingConfig as thinking options: a budget of 0 is thinking off, -1 (dynamic) and `includeThoughts` alone are
 * thinking on at the provider's default, a level is an effort. Hidden thoughts (`includeThoughts` false or absent
 * with thinking on) are unmodeled: promptline always asks to see them.
 */
function thinkingOptions(config: RecordOf, path: string, unmodeled: string[]): ThinkingOptions | false | undefined {
  unmodeled.push(...otherKeys(config, new Set(["thinkingBudget", "thinkingLevel", "includeThoughts"]), path))
  const budget = numberAt(config, "thinkingBudget", path)
  const level = stringAt(config, "thinkingLevel", path)
  const includeKey = keyIn(config, "includeThoughts")
  const include = includeKey === undefined ? undefined : config[includeKey]
  if (include !== undefined && typeof include !== "boolean")
    throw invalidRequest(`${path}.${includeKey}`, "must be true or false")
  if (budget === 0) return false
  const out: ThinkingOptions = {}
  if (budget !== undefined && budget > 0) out.budgetTokens = budget
  if (level !== undefined) {
    const effort = EFFORTS[level.toUpperCase()]
    if (effort) out.effort = effort
    else unmodeled.push(`${path}.${keyIn(config, "thinkingLevel")}`)
  }
  if (budget === undefined && level === undefined && include !== true) return undefined
  // Thinking on with its thoughts hidden (Gemini's default): promptline would ask to see them.
  if (include !== true) unmodeled.push(includeKey === undefined ? path : `${path}.${includeKey}`)
  return out
}
