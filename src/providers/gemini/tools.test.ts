import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toGeminiSchema } from "../../tools/native.js"
import type { JsonSchema } from "../../tools/spec.js"
import { decodeGeminiTools, fromGeminiSchema } from "./tools.js"

/** JSON Schemas Gemini's subset says exactly: these must come back from the subset as they went. */
const leaf = fc.oneof(
  fc.constantFrom("string", "number", "integer", "boolean").map((type): JsonSchema => ({ type })),
  fc.constantFrom("string", "number", "boolean").map((type): JsonSchema => ({ type: [type, "null"] })),
  fc
    .uniqueArray(fc.constantFrom("a", "b", "c d"), { minLength: 1 })
    .map((e): JsonSchema => ({ type: "string", enum: e })),
  fc.record({ type: fc.constant("string"), description: fc.string(), format: fc.constant("date-time") }),
  fc.record({
    type: fc.constant("integer"),
    minimum: fc.integer(),
    maximum: fc.integer(),
    format: fc.constant("int64"),
  }),
  fc.record({ type: fc.constant("string"), minLength: fc.nat(9), maxLength: fc.nat(99), pattern: fc.constant("^a") }),
)
const { node } = fc.letrec<{ node: JsonSchema; object: JsonSchema; array: JsonSchema }>((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("object"), tie("array")),
  array: fc.record({ type: fc.constant("array"), items: tie("node"), minItems: fc.nat(3) }),
  object: fc
    .dictionary(fc.stringMatching(/^[a-z_]{1,6}$/), tie("node"), { minKeys: 1, maxKeys: 3 })
    .chain((properties) =>
      fc.subarray(Object.keys(properties)).map((required): JsonSchema => ({ type: "object", properties, required })),
    ),
}))

describe("Gemini schemas read back", () => {
  it("fromGeminiSchema(toGeminiSchema(s)) is s for every schema the subset says exactly", () => {
    fc.assert(
      fc.property(node, (schema) => {
        const converted = toGeminiSchema(schema)
        expect(converted.lossless).toBe(true)
        expect(fromGeminiSchema(JSON.parse(JSON.stringify(converted.schema)))).toEqual(schema)
      }),
    )
  })

  it("reads lowercase and snake_case spellings, nullable unions, and count limits as numbers", () => {
    expect(
      fromGeminiSchema({
        type: "object",
        properties: { a: { type: "ARRAY", items: { type: "string" }, max_items: "4" } },
        any_of: [{ type: "INTEGER" }],
        nullable: true,
        property_ordering: ["a"],
      }),
    ).toEqual({
      type: ["object", "null"],
      properties: { a: { type: "array", items: { type: "string" }, maxItems: 4 } },
      anyOf: [{ type: "integer" }],
      propertyOrdering: ["a"],
    })
    expect(fromGeminiSchema({ anyOf: [{ type: "STRING" }], nullable: true })).toEqual({
      anyOf: [{ type: "string" }],
      nullable: true,
    })
  })

  it("keeps parametersJsonSchema as sent and lists every non-function tool as unmodeled", () => {
    const unmodeled: string[] = []
    const schema = { type: "object", properties: { q: { type: "string", format: "uri" } }, required: ["q"], $defs: {} }
    const tools = decodeGeminiTools(
      [
        { functionDeclarations: [{ name: "fetch", parametersJsonSchema: schema, response: { type: "STRING" } }] },
        { url_context: {} },
      ],
      unmodeled,
    )
    expect(tools).toEqual([
      {
        id: "fetch",
        kind: "client",
        name: "fetch",
        description: "",
        snippet: "",
        guidelines: [],
        parameters: schema,
        examples: {},
      },
    ])
    expect(unmodeled).toEqual(["tools[0].functionDeclarations[0].response", "tools[1].url_context"])
  })
})
