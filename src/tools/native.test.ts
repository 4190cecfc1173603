import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toOpenAIResponsesTools } from "../providers/openai-responses/tools.js"
import {
  toAnthropicTools,
  toGeminiSchema,
  toGeminiTools,
  toNativeTools,
  toOpenAIChatTools,
  toStrictSchema,
} from "./native.js"
import type { EnabledTool, JsonSchema } from "./spec.js"

type Params = EnabledTool["parameters"]

function tool(name: string, parameters: Params): EnabledTool {
  return {
    id: name,
    kind: "mcp",
    name,
    description: `The ${name} tool.`,
    snippet: name,
    guidelines: [],
    parameters,
    examples: {},
  }
}

/** Three levels of objects, arrays of objects, enums of several types, required lists and descriptions. */
const deep: Params = {
  type: "object",
  properties: {
    path: { type: "string", description: "File to edit." },
    mode: { type: "string", enum: ["append", "replace"], description: "How to write." },
    level: { type: "integer", enum: [1, 2, 3], description: "Nesting level." },
    edits: {
      type: "array",
      description: "Edits in order.",
      items: {
        type: "object",
        description: "One edit.",
        properties: {
          range: {
            type: "object",
            description: "Where.",
            properties: {
              start: { type: "integer", description: "First line.", minimum: 1 },
              end: { type: "integer", description: "Last line." },
            },
            required: ["start"],
          },
          text: { type: "string", description: "New text." },
          tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, maxItems: 4 },
        },
        required: ["range", "text"],
      },
    },
    note: { type: ["string", "null"], description: "Optional note." },
  },
  required: ["path", "edits"],
}

describe("Anthropic and OpenAI definitions", () => {
  const tools = [tool("edit", deep)]

  it("keeps the schema whole for Anthropic", () => {
    const [def] = toAnthropicTools(tools)
    expect(def).toEqual({ name: "edit", description: "The edit tool.", input_schema: deep })
  })

  it("wraps the schema in a function for OpenAI Chat", () => {
    const [def] = toOpenAIChatTools(tools)
    expect(def).toEqual({
      type: "function",
      function: { name: "edit", description: "The edit tool.", parameters: deep },
    })
  })

  it("uses the flat function shape for OpenAI Responses, strict off by default", () => {
    const [def] = toOpenAIResponsesTools(tools)
    expect(def).toEqual({
      type: "function",
      name: "edit",
      description: "The edit tool.",
      parameters: deep,
      strict: false,
    })
  })

  it("never shares objects with the input", () => {
    const [def] = toAnthropicTools(tools)
    ;(def!.input_schema.properties as Record<string, JsonSchema>).path!.description = "changed"
    expect(deep.properties.path!.description).toBe("File to edit.")
  })

  it("dispatches by wire format; DeepSeek uses the OpenAI Chat shape", () => {
    expect(toNativeTools(tools, "deepseek")).toEqual(toOpenAIChatTools(tools))
    expect(toNativeTools(tools, "anthropic")).toEqual(toAnthropicTools(tools))
    expect(toNativeTools(tools, "openai-responses")).toEqual(toOpenAIResponsesTools(tools))
    expect(toNativeTools(tools, "gemini")).toEqual(toGeminiTools(tools))
    expect(toNativeTools([], "gemini")).toEqual([])
  })
})

describe("OpenAI strict mode", () => {
  it("requires every property, forbids extra ones, and lets optional ones be null", () => {
    const strict = toStrictSchema(deep)
    expect(strict.required).toEqual(["path", "mode", "level", "edits", "note"])
    expect(strict.additionalProperties).toBe(false)
    expect(strict.properties!.mode).toEqual({
      type: ["string", "null"],
      enum: ["append", "replace", null],
      description: "How to write.",
    })
    expect(strict.properties!.note!.type).toEqual(["string", "null"])
    const item = strict.properties!.edits!.items!
    expect(item.required).toEqual(["range", "text", "tags"])
    expect(item.properties!.range!.required).toEqual(["start", "end"])
    expect(item.properties!.range!.properties!.end!.type).toEqual(["integer", "null"])
    expect(item.properties!.tags!.type).toEqual(["array", "null"])
  })

  it("marks the definition strict in both OpenAI shapes", () => {
    const chat = toOpenAIChatTools([tool("edit", deep)], { strict: true })[0]!
    expect(chat.function.strict).toBe(true)
    expect(chat.function.parameters).toEqual(toStrictSchema(deep))
    expect(toOpenAIResponsesTools([tool("edit", deep)], { strict: true })[0]!.strict).toBe(true)
  })
})

describe("Gemini definitions", () => {
  it("converts to the OpenAPI subset without flattening", () => {
    const [gem] = toGeminiTools([tool("edit", deep)], { schema: "openapi" })
    const decl = gem!.functionDeclarations![0]!
    expect(decl.parametersJsonSchema).toBeUndefined()
    expect(decl.parameters).toEqual({
      type: "OBJECT",
      properties: {
        path: { type: "STRING", description: "File to edit." },
        mode: { type: "STRING", enum: ["append", "replace"], description: "How to write." },
        // Gemini takes enums only on STRING: the integer values are named in the description instead.
        level: { type: "INTEGER", description: "Nesting level. Allowed values: 1, 2, 3." },
        edits: {
          type: "ARRAY",
          description: "Edits in order.",
          items: {
            type: "OBJECT",
            description: "One edit.",
            properties: {
              range: {
                type: "OBJECT",
                description: "Where.",
                properties: {
                  start: { type: "INTEGER", description: "First line.", minimum: 1 },
                  end: { type: "INTEGER", description: "Last line." },
                },
                required: ["start"],
              },
              text: { type: "STRING", description: "New text." },
              tags: { type: "ARRAY", items: { type: "STRING", enum: ["a", "b"] }, maxItems: "4" },
            },
            required: ["range", "text"],
          },
        },
        note: { type: "STRING", nullable: true, description: "Optional note." },
      },
      required: ["path", "edits"],
    })
  })

  it("never puts an enum on a non-STRING schema; such a tool goes as JSON Schema", () => {
    // Before: {type: "INTEGER", format: "enum", enum: ["1", "2", "3"]}, which the Gemini API refuses.
    const auto = toGeminiTools([tool("edit", deep)])[0]!.functionDeclarations![0]!
    expect(auto.parameters).toBeUndefined()
    expect(auto.parametersJsonSchema).toEqual(deep)
    expect(toGeminiSchema({ type: "integer", enum: [1, 2] })).toEqual({
      lossless: false,
      schema: { type: "INTEGER", description: "Allowed values: 1, 2." },
    })
    expect(toGeminiSchema({ type: "boolean", const: true }).schema).toEqual({
      type: "BOOLEAN",
      description: "Allowed values: true.",
    })
    expect(toGeminiSchema({ type: "integer", format: "enum" }).lossless).toBe(false)
    // An untyped enum of strings is a STRING enum.
    expect(toGeminiSchema({ enum: ["a", "b"] })).toEqual({
      lossless: true,
      schema: { type: "STRING", enum: ["a", "b"] },
    })
  })

  it("declares no parameters for a tool that takes none", () => {
    const decl = toGeminiTools([tool("ping", { type: "object", properties: {}, required: [] })])[0]!
      .functionDeclarations![0]!
    expect(decl).toEqual({ name: "ping", description: "The ping tool." })
  })

  it("falls back to JSON Schema for a free-form object, unless told otherwise", () => {
    const params: Params = {
      type: "object",
      properties: { server_name: { type: "string" }, arguments: { type: "object", description: "Any arguments." } },
      required: ["server_name", "arguments"],
    }
    const auto = toGeminiTools([tool("use_mcp_tool", params)])[0]!.functionDeclarations![0]!
    expect(auto.parameters).toBeUndefined()
    expect(auto.parametersJsonSchema).toEqual(params)
    const forced = toGeminiTools([tool("use_mcp_tool", params)], { schema: "openapi" })[0]!.functionDeclarations![0]!
    expect(forced.parametersJsonSchema).toBeUndefined()
    expect(forced.parameters?.properties?.arguments).toEqual({ type: "OBJECT", description: "Any arguments." })
    const json = toGeminiTools([tool("edit", deep)], { schema: "json-schema" })[0]!.functionDeclarations![0]!
    expect(json.parametersJsonSchema).toEqual(deep)
  })

  it("reads type unions, oneOf and const", () => {
    expect(toGeminiSchema({ type: ["string", "integer"], description: "Either." })).toEqual({
      lossless: true,
      schema: { anyOf: [{ type: "STRING" }, { type: "INTEGER" }], description: "Either." },
    })
    expect(toGeminiSchema({ oneOf: [{ type: "string" }, { type: "boolean" }] }).schema).toEqual({
      anyOf: [{ type: "STRING" }, { type: "BOOLEAN" }],
    })
    expect(toGeminiSchema({ type: "string", const: "x" }).schema).toEqual({ type: "STRING", enum: ["x"] })
    expect(toGeminiSchema({ $ref: "#/$defs/a" }).lossless).toBe(false)
    expect(toGeminiSchema({ type: "string", format: "uri" })).toEqual({ lossless: false, schema: { type: "STRING" } })
  })
})

/** Random schemas: objects of objects and arrays, with enums, required lists and descriptions. */
const schemaArb: fc.Arbitrary<JsonSchema> = fc.letrec<{ schema: JsonSchema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.record(
      { type: fc.constantFrom("string", "integer", "number", "boolean"), description: fc.string() },
      { requiredKeys: ["type"] },
    ),
    fc.record({ type: fc.constant("string"), enum: fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: 1 }) }),
    fc.record({ type: fc.constant("array"), items: tie("schema"), description: fc.string() }),
    fc.dictionary(fc.stringMatching(/^[a-z_]{1,8}$/), tie("schema"), { minKeys: 1, maxKeys: 4 }).chain((properties) =>
      fc.record({
        type: fc.constant("object"),
        properties: fc.constant(properties),
        required: fc.subarray(Object.keys(properties)),
        description: fc.string(),
      }),
    ),
  ),
})).schema

/** Walks a JSON Schema and its Gemini conversion side by side, comparing what must survive. */
function sameShape(json: JsonSchema, gem: Record<string, unknown>): boolean {
  if ((json.description ?? undefined) !== gem.description) return false
  if (JSON.stringify(json.required) !== JSON.stringify(gem.required)) return false
  if (json.enum && JSON.stringify(json.enum) !== JSON.stringify(gem.enum)) return false
  if (gem.type !== String(json.type).toUpperCase()) return false
  if (json.items && !sameShape(json.items, gem.items as Record<string, unknown>)) return false
  if (json.properties) {
    const props = gem.properties as Record<string, Record<string, unknown>>
    if (JSON.stringify(Object.keys(json.properties)) !== JSON.stringify(Object.keys(props))) return false
    for (const [k, v] of Object.entries(json.properties)) if (!sameShape(v, props[k]!)) return false
  }
  return true
}

describe("properties of the conversions", () => {
  it("Anthropic and OpenAI carry any schema unchanged; Gemini keeps every level", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), schemaArb, { minKeys: 1, maxKeys: 4 }),
        (properties) => {
          const params: Params = { type: "object", properties, required: Object.keys(properties).slice(0, 1) }
          const tools = [tool("t", params)]
          expect(toAnthropicTools(tools)[0]!.input_schema).toEqual(params)
          expect(toOpenAIChatTools(tools)[0]!.function.parameters).toEqual(params)
          expect(toOpenAIResponsesTools(tools)[0]!.parameters).toEqual(params)
          const converted = toGeminiSchema(params)
          expect(converted.lossless).toBe(true)
          expect(sameShape(params, converted.schema as Record<string, unknown>)).toBe(true)
        },
      ),
    )
  })

  it("Gemini's subset never carries an enum or format enum outside STRING", () => {
    const enums = fc.oneof(
      fc.record({ type: fc.constantFrom("integer", "number"), enum: fc.uniqueArray(fc.integer(), { minLength: 1 }) }),
      fc.record({ type: fc.constant("boolean"), const: fc.boolean() }),
      schemaArb,
    )
    const walk = (s: Record<string, unknown>): boolean => {
      if ((s.enum !== undefined || s.format === "enum") && s.type !== "STRING") return false
      const subs = [
        ...Object.values((s.properties as Record<string, Record<string, unknown>>) ?? {}),
        ...(s.items ? [s.items as Record<string, unknown>] : []),
      ]
      return subs.every(walk)
    }
    fc.assert(
      fc.property(fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), enums, { minKeys: 1, maxKeys: 4 }), (properties) => {
        const converted = toGeminiSchema({ type: "object", properties })
        expect(walk(converted.schema as Record<string, unknown>)).toBe(true)
      }),
    )
  })

  it("strict schemas require every property of every object and still describe it", () => {
    const check = (s: JsonSchema, original: JsonSchema): void => {
      if (original.properties) {
        expect(s.required).toEqual(Object.keys(original.properties))
        expect(s.additionalProperties).toBe(false)
        for (const [k, v] of Object.entries(original.properties)) {
          const sub = s.properties![k]!
          expect(sub.description).toBe(v.description)
          check(sub, v)
        }
      }
      if (original.items) check(s.items!, original.items)
    }
    fc.assert(fc.property(schemaArb, (schema) => check(toStrictSchema(schema), schema)))
  })
})
