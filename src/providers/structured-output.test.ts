/**
 * Structured output, both ways in every format: each client format's JSON-output fields read as one
 * `responseFormat`, and each encoder writing it in its upstream's form (checked against OpenAI's OpenAPI document
 * and read back by the format's own decoder), or reporting what it cannot carry.
 */
import { describe, expect, it } from "vitest"
import { openapiErrors } from "../../test/fixtures/providers/requests/openapi.js"
import { resolveModel } from "../models/resolve.js"
import type { BuiltInWireFormat } from "../models/types.js"
import { encodeAnthropic } from "./anthropic/encode.js"
import { encodeDeepSeek } from "./deepseek/encode.js"
import { formatModule } from "./formats.js"
import { encodeGemini } from "./gemini/encode.js"
import { encodeOpenAIChat } from "./openai-chat/encode.js"
import { encodeOpenAIResponses } from "./openai-responses/encode.js"
import { SCHEMA } from "./test-helpers/client-bodies.js"
import type { EncodeInput, EncodeOptions, ResponseFormat } from "./types.js"

const user = "Route this request."
const jsonSchema: ResponseFormat = { type: "json-schema", schema: SCHEMA }

/** Reads a client body of a format; returns its response format, what it named, and where the format came from. */
function read(format: BuiltInWireFormat, body: Record<string, unknown>) {
  const decoded = formatModule(format).decodeRequest(body, { model: "m", stream: false })
  return { format: decoded.options.responseFormat, unmodeled: decoded.unmodeled, sources: decoded.sources }
}

describe("structured output: what each client sends, read", () => {
  it("Gemini CLI's routing call: responseMimeType and responseJsonSchema", () => {
    const body = {
      contents: [{ role: "user", parts: [{ text: user }] }],
      generationConfig: {
        temperature: 0,
        maxOutputTokens: 1024,
        thinkingConfig: { thinkingBudget: 512 },
        responseMimeType: "application/json",
        responseJsonSchema: SCHEMA,
      },
    }
    const { format, sources } = read("gemini", body)
    expect(format).toEqual(jsonSchema)
    expect(sources.responseFormat).toEqual(["generationConfig.responseMimeType", "generationConfig.responseJsonSchema"])
  })

  it("Gemini CLI's upper-case type names in responseJsonSchema and parametersJsonSchema become JSON Schema's own", () => {
    // As Gemini CLI 0.61's model router writes it (the @google/genai Type enum), which Gemini accepts.
    const upper = {
      type: "OBJECT",
      properties: {
        reasoning: { type: "STRING", description: "why" },
        score: { type: "INTEGER" },
        tags: { type: "ARRAY", items: { type: "STRING" } },
        either: { anyOf: [{ type: "NUMBER" }, { type: ["BOOLEAN", "NULL"] }] },
        type: { type: "STRING", enum: ["OBJECT", "STRING"] },
      },
      required: ["reasoning", "score"],
    }
    const lower = {
      type: "object",
      properties: {
        reasoning: { type: "string", description: "why" },
        score: { type: "integer" },
        tags: { type: "array", items: { type: "string" } },
        either: { anyOf: [{ type: "number" }, { type: ["boolean", "null"] }] },
        type: { type: "string", enum: ["OBJECT", "STRING"] },
      },
      required: ["reasoning", "score"],
    }
    const decoded = formatModule("gemini").decodeRequest(
      {
        contents: [{ role: "user", parts: [{ text: user }] }],
        tools: [{ functionDeclarations: [{ name: "route", description: "d", parametersJsonSchema: upper }] }],
        generationConfig: { responseMimeType: "application/json", responseJsonSchema: upper },
      },
      { model: "m", stream: false },
    )
    expect(decoded.options.responseFormat).toEqual({ type: "json-schema", schema: lower })
    expect(decoded.prompt.tools[0]?.parameters.properties).toEqual(lower.properties)
    // The OpenAI body made from it is valid.
    const chat = write("openai-chat", "gpt-4.1", "openai", { responseFormat: decoded.options.responseFormat! })
    expect(openapiErrors("CreateChatCompletionRequest", chat.body)).toEqual([])
  })

  it("Gemini: responseSchema (the OpenAPI subset) becomes JSON Schema; JSON without a schema; other MIME types named", () => {
    const contents = [{ parts: [{ text: user }] }]
    const subset = { type: "OBJECT", properties: { n: { type: "INTEGER", nullable: true } }, required: ["n"] }
    expect(
      read("gemini", {
        contents,
        generation_config: { response_mime_type: "application/json", response_schema: subset },
      }).format,
    ).toEqual({
      type: "json-schema",
      schema: { type: "object", properties: { n: { type: ["integer", "null"] } }, required: ["n"] },
    })
    expect(read("gemini", { contents, generationConfig: { responseMimeType: "application/json" } }).format).toEqual({
      type: "json",
    })
    const plain = read("gemini", { contents, generationConfig: { responseMimeType: "text/plain" } })
    expect([plain.format, plain.unmodeled]).toEqual([undefined, []])
    const enumMime = read("gemini", {
      contents,
      generationConfig: { responseMimeType: "text/x.enum", responseSchema: { type: "STRING", enum: ["a"] } },
    })
    expect([enumMime.format, enumMime.unmodeled]).toEqual([
      undefined,
      ["generationConfig.responseMimeType", "generationConfig.responseSchema"],
    ])
  })

  it("OpenAI Chat: response_format json_schema (name, strict, description) and json_object; text is the default", () => {
    const messages = [{ role: "user", content: user }]
    const schemaFormat = { name: "route", description: "A route.", schema: SCHEMA, strict: true }
    expect(
      read("openai-chat", { model: "m", messages, response_format: { type: "json_schema", json_schema: schemaFormat } })
        .format,
    ).toEqual({ ...jsonSchema, name: "route", description: "A route.", strict: true })
    expect(read("openai-chat", { model: "m", messages, response_format: { type: "json_object" } }).format).toEqual({
      type: "json",
    })
    const text = read("openai-chat", { model: "m", messages, response_format: { type: "text" } })
    expect([text.format, text.unmodeled]).toEqual([undefined, []])
    const grammar = read("openai-chat", { model: "m", messages, response_format: { type: "grammar", grammar: {} } })
    expect([grammar.format, grammar.unmodeled]).toEqual([undefined, ["response_format"]])
  })

  it("OpenAI Responses: text.format, flat; verbosity named", () => {
    const body = {
      model: "m",
      input: user,
      text: { format: { type: "json_schema", name: "route", schema: SCHEMA }, verbosity: "low" },
    }
    const { format, unmodeled } = read("openai-responses", body)
    expect(format).toEqual({ ...jsonSchema, name: "route" })
    expect(unmodeled).toEqual(["text.verbosity"])
  })

  it("Anthropic: output_config.format beside the effort, or the deprecated output_format", () => {
    const base = { model: "m", max_tokens: 100, messages: [{ role: "user", content: user }] }
    const current = read("anthropic", {
      ...base,
      output_config: { effort: "low", format: { type: "json_schema", schema: SCHEMA } },
    })
    expect([current.format, current.unmodeled]).toEqual([jsonSchema, []])
    expect(read("anthropic", { ...base, output_format: { type: "json_schema", schema: SCHEMA } }).format).toEqual(
      jsonSchema,
    )
    expect(read("anthropic", { ...base, output_config: { format: { type: "json_object" } } }).unmodeled).toEqual([
      "output_config.format",
    ])
  })
})

/** The encoder of each format, with its body type. */
const ENCODERS = {
  anthropic: encodeAnthropic,
  "openai-chat": encodeOpenAIChat,
  "openai-responses": encodeOpenAIResponses,
  gemini: encodeGemini,
  deepseek: encodeDeepSeek,
} satisfies Record<BuiltInWireFormat, unknown>

/** Encodes a one-message request with `options` for a format and model. */
function write<F extends BuiltInWireFormat>(format: F, id: string, provider: string, options: EncodeOptions) {
  const model = resolveModel(id, { provider }).model
  const messages = [{ id: "m1", role: "user" as const, content: [{ type: "text" as const, text: user }], ts: 0 }]
  const encode = ENCODERS[format] as (input: EncodeInput) => ReturnType<(typeof ENCODERS)[F]>
  return encode({ prompt: { text: "Be brief.", tools: [] }, messages, model, options })
}

describe("structured output: what each upstream gets", () => {
  const named = { ...jsonSchema, name: "route", strict: true }

  it("OpenAI Chat: response_format, valid against the OpenAPI document", () => {
    const schema = write("openai-chat", "gpt-4.1", "openai", { responseFormat: named })
    expect(schema.body.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "route", schema: SCHEMA, strict: true },
    })
    expect(openapiErrors("CreateChatCompletionRequest", schema.body)).toEqual([])
    const json = write("openai-chat", "gpt-4.1", "openai", { responseFormat: { type: "json" } })
    expect(json.body.response_format).toEqual({ type: "json_object" })
    // A schema without a name gets one (OpenAI requires it).
    const unnamed = write("openai-chat", "gpt-4.1", "openai", { responseFormat: jsonSchema })
    expect(openapiErrors("CreateChatCompletionRequest", unnamed.body)).toEqual([])
    expect([schema.uncarried, json.uncarried]).toEqual([undefined, undefined])
  })

  it("OpenAI Responses: text.format, valid against the OpenAPI document", () => {
    const { body, uncarried } = write("openai-responses", "gpt-5", "openai", { responseFormat: named })
    expect(body.text).toEqual({ format: { type: "json_schema", name: "route", schema: SCHEMA, strict: true } })
    expect(openapiErrors("CreateResponse", body)).toEqual([])
    expect(uncarried).toBeUndefined()
  })

  it("Gemini: JSON output with the schema as responseJsonSchema", () => {
    const { body, uncarried } = write("gemini", "gemini-2.5-flash", "gemini", { responseFormat: named })
    expect(body.generationConfig).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: SCHEMA })
    expect(uncarried).toBeUndefined()
    const json = write("gemini", "gemini-2.5-flash", "gemini", { responseFormat: { type: "json" } }).body
    expect(json.generationConfig?.responseMimeType).toBe("application/json")
    expect(json.generationConfig?.responseJsonSchema).toBeUndefined()
  })

  it("Anthropic: output_config.format beside the effort; JSON without a schema is reported, not sent", () => {
    const thinking = { effort: "high" as const }
    const { body, uncarried } = write("anthropic", "claude-sonnet-4-5", "anthropic", {
      responseFormat: named,
      thinking,
    })
    expect(body.output_config).toEqual({ effort: "high", format: { type: "json_schema", schema: SCHEMA } })
    expect(uncarried).toBeUndefined()
    const json = write("anthropic", "claude-sonnet-4-5", "anthropic", { responseFormat: { type: "json" } })
    expect([json.body.output_config, json.uncarried]).toEqual([undefined, ["responseFormat"]])
  })

  it("DeepSeek: JSON mode; a schema is reported as not carried", () => {
    const { body, uncarried } = write("deepseek", "deepseek-chat", "deepseek", { responseFormat: named })
    expect([body.response_format, uncarried]).toEqual([{ type: "json_object" }, ["responseFormat.schema"]])
  })

  it("each format reads back what its encoder wrote", () => {
    const cases: [BuiltInWireFormat, string, string][] = [
      ["openai-chat", "gpt-4.1", "openai"],
      ["openai-responses", "gpt-5", "openai"],
      ["gemini", "gemini-2.5-flash", "gemini"],
      ["anthropic", "claude-sonnet-4-5", "anthropic"],
    ]
    for (const [format, id, provider] of cases) {
      const { body } = write(format, id, provider, { responseFormat: named })
      const back = formatModule(format).decodeRequest(JSON.parse(JSON.stringify(body)), { model: id })
      const expected = format === "anthropic" || format === "gemini" ? jsonSchema : named
      expect(back.options.responseFormat, format).toEqual(expected)
    }
  })
})
