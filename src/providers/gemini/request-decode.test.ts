import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { FIXTURE_DIR, fixtureModel, mixedHistory } from "../../../test/fixtures/providers/requests/load.js"
import { anyHistory } from "../../../test/fixtures/providers/requests/sequence-rules.js"
import type { Message } from "../../history/message.js"
import { choiceOffered } from "../carried.js"
import { ProviderError } from "../errors.js"
import type { EncodeOptions } from "../types.js"
import { encodeGemini } from "./encode.js"
import { decodeGeminiRequest } from "./request-decode.js"
import { expectedMessages, historyArb, toolsArb } from "./test-helpers/histories.js"

const model = fixtureModel("gemini")
const gemini25 = { ...model, id: "gemini-2.5-pro" }
const route = { model: model.id, stream: true, sse: true }

/** Encodes, decodes, and encodes the decoded request again: the two bodies must be equal. */
function reencode(messages: readonly Message[], options: EncodeOptions, target = model) {
  const { prompt } = mixedHistory()
  const first = encodeGemini({ prompt, messages, model: target, options }).body
  const decoded = decodeGeminiRequest(JSON.parse(JSON.stringify(first)), route)
  const second = encodeGemini({
    prompt: decoded.prompt,
    messages: decoded.messages,
    model: target,
    options: decoded.options,
  }).body
  return { first, second, decoded }
}

const errorOf = (body: unknown): ProviderError => {
  try {
    decodeGeminiRequest(body, route)
  } catch (error) {
    return error as ProviderError
  }
  throw new Error("no error")
}

describe("Gemini request decoding: the golden body", () => {
  const golden = JSON.parse(readFileSync(join(FIXTURE_DIR, "gemini.golden.json"), "utf8")).body
  const decoded = decodeGeminiRequest(golden, route)

  it("reads the encoder's golden body back: system prompt, tools, roles, calls paired with results, options", () => {
    const { prompt } = mixedHistory()
    expect(decoded.model).toBe(model.id)
    expect(decoded.prompt.text).toBe(prompt.text)
    expect(decoded.prompt.tools.map((t) => t.name)).toEqual(prompt.tools.map((t) => t.name))
    expect(decoded.prompt.tools.every((t) => t.kind === "client" && t.id === t.name && t.snippet === "")).toBe(true)
    expect(decoded.messages.map((m) => m.id)).toEqual(decoded.messages.map((_, i) => `m${i + 1}`))
    expect(decoded.messages.every((m) => m.ts === 0)).toBe(true)
    const uses = decoded.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use"))
    const results = decoded.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result"))
    for (const r of results) expect(uses.map((u) => u.id)).toContain(r.toolUseId)
    expect(decoded.options).toEqual({ stream: true, maxTokens: 65536, thinking: { effort: "high" } })
    expect(decoded.unmodeled).toEqual([])
  })

  it("re-encodes the decoded golden body to the same bytes", () => {
    const second = encodeGemini({ ...decoded, model }).body
    expect(second).toEqual(golden)
  })
})

describe("Gemini request decoding: real-shaped bodies", () => {
  it("reads a snake_case body and lists every field it does not model as a JSON path", () => {
    const decoded = decodeGeminiRequest(
      {
        system_instruction: { parts: [{ text: "Be brief." }, { file_data: { file_uri: "gs://a" } }] },
        contents: [
          {
            role: "user",
            parts: [
              { text: "Look." },
              { inline_data: { mime_type: "image/png", data: "aW1n" } },
              { inline_data: { mime_type: "application/pdf", data: "cGRm" } },
              { file_data: { mime_type: "video/mp4", file_uri: "gs://v" }, video_metadata: { fps: 1 } },
            ],
          },
          {
            role: "model",
            parts: [
              { text: "plan", thought: true, thought_signature: "s1" },
              { executable_code: { language: "PYTHON", code: "1" } },
              { function_call: { name: "read_file", args: { path: "a" } }, thought_signature: "s2" },
            ],
          },
          { role: "user", parts: [{ function_response: { name: "read_file", response: { error: "nope" } } }] },
        ],
        tools: [
          {
            function_declarations: [
              { name: "read_file", parameters: { type: "OBJECT", properties: { path: { type: "STRING" } } } },
              { name: "ping", behavior: "NON_BLOCKING" },
            ],
          },
          { google_search: {} },
          { codeExecution: {}, urlContext: {} },
        ],
        tool_config: { function_calling_config: { mode: "ANY", allowed_function_names: ["read_file", "ping"] } },
        generation_config: {
          max_output_tokens: 1000,
          temperature: 0.2,
          response_mime_type: "application/json",
          candidate_count: 1,
          stop_sequences: ["x"],
          thinking_config: { thinking_budget: 2048, include_thoughts: false },
        },
        cached_content: "cachedContents/abc",
        safety_settings: [],
        labels: { team: "a" },
        a_field_from_the_future: true,
      },
      route,
    )
    expect(decoded.prompt.text).toBe("Be brief.")
    expect(decoded.messages).toEqual([
      {
        id: "m1",
        role: "user",
        ts: 0,
        content: [
          { type: "text", text: "Look." },
          { type: "image", mediaType: "image/png", data: "aW1n" },
        ],
      },
      {
        id: "m2",
        role: "assistant",
        ts: 0,
        content: [
          { type: "thinking", text: "plan", signature: "s1" },
          { type: "tool_use", id: "gemini_call_1", name: "read_file", input: { path: "a" }, signature: "s2" },
        ],
      },
      {
        id: "m3",
        role: "user",
        ts: 0,
        content: [{ type: "tool_result", toolUseId: "gemini_call_1", content: "nope", isError: true }],
      },
    ])
    expect(decoded.prompt.tools.map((t) => [t.name, t.parameters])).toEqual([
      ["read_file", { type: "object", properties: { path: { type: "string" } }, required: [] }],
      ["ping", { type: "object", properties: {}, required: [] }],
    ])
    expect(decoded.options).toEqual({
      stream: true,
      toolChoice: "required",
      maxTokens: 1000,
      temperature: 0.2,
      thinking: { budgetTokens: 2048 },
      responseFormat: { type: "json" },
    })
    expect([...decoded.unmodeled].sort()).toEqual(
      [
        "a_field_from_the_future",
        "cached_content",
        "contents[0].parts[2]",
        "contents[0].parts[3]",
        "contents[0].parts[3].video_metadata",
        "contents[1].parts[1]",
        "generation_config.candidate_count",
        "generation_config.stop_sequences",
        "generation_config.thinking_config.include_thoughts",
        "labels",
        "safety_settings",
        "system_instruction.parts[1]",
        "tool_config.function_calling_config.allowed_function_names",
        "tools[0].function_declarations[1].behavior",
        "tools[1].google_search",
        "tools[2].codeExecution",
        "tools[2].urlContext",
      ].sort(),
    )
  })

  it("takes a string system instruction, ids the client sent, and pairs id-less responses by order and name", () => {
    const decoded = decodeGeminiRequest(
      {
        systemInstruction: "Plain string.",
        contents: [
          { parts: [{ text: "go" }] },
          {
            role: "model",
            parts: [
              { functionCall: { name: "a", args: {} } },
              { functionCall: { name: "b", args: {} } },
              { functionCall: { id: "own", name: "a", args: {} } },
              { functionCall: { name: "a", args: {} } },
            ],
          },
          {
            role: "user",
            parts: [
              { functionResponse: { name: "b", response: { output: "B" } } },
              { functionResponse: { id: "own", name: "a", response: { output: "own" } } },
              { functionResponse: { name: "a", response: { output: "A1" } } },
              { functionResponse: { name: "a", response: { result: 3 } } },
              { functionResponse: { name: "zzz", response: { output: "orphan" } } },
            ],
          },
        ],
      },
      route,
    )
    expect(decoded.prompt.text).toBe("Plain string.")
    expect(decoded.messages[1]!.content.map((b) => (b.type === "tool_use" ? b.id : ""))).toEqual([
      "gemini_call_1",
      "gemini_call_2",
      "own",
      "gemini_call_4",
    ])
    expect(decoded.messages[2]!.content.map((b) => (b.type === "tool_result" ? [b.toolUseId, b.content] : []))).toEqual(
      [
        ["gemini_call_2", "B"],
        ["own", "own"],
        ["gemini_call_1", "A1"],
        ["gemini_call_4", '{"result":3}'],
        ["gemini_call_5", "orphan"],
      ],
    )
    expect(decoded.diagnostics.map((d) => d.code)).toEqual(["function-response-unpaired"])
  })

  it("turns <system-reminder> text back into system messages and drops the placeholder signature", () => {
    const decoded = decodeGeminiRequest(
      {
        contents: [
          { role: "user", parts: [{ text: "<system-reminder>\nBe careful.\n</system-reminder>" }, { text: "hi" }] },
          {
            role: "model",
            parts: [
              { functionCall: { name: "a", args: {} }, thoughtSignature: "skip_thought_signature_validator" },
              { text: "done", thoughtSignature: "sig" },
            ],
          },
        ],
      },
      route,
    )
    expect(decoded.messages.map((m) => [m.role, m.content])).toEqual([
      ["system", [{ type: "text", text: "Be careful." }]],
      ["user", [{ type: "text", text: "hi" }]],
      [
        "assistant",
        [
          { type: "tool_use", id: "gemini_call_1", name: "a", input: {} },
          { type: "thinking", text: "", signature: "sig" },
          { type: "text", text: "done" },
        ],
      ],
    ])
  })

  it("maps functionCallingConfig and thinkingConfig to tool choice and thinking", () => {
    const options = (toolConfig: unknown, generationConfig: unknown) =>
      decodeGeminiRequest({ contents: [{ parts: [{ text: "x" }] }], toolConfig, generationConfig }, {}).options
    expect(options({ functionCallingConfig: { mode: "AUTO" } }, undefined).toolChoice).toBe("auto")
    expect(options({ functionCallingConfig: { mode: "NONE" } }, undefined).toolChoice).toBe("none")
    expect(options({ functionCallingConfig: { mode: "ANY" } }, undefined).toolChoice).toBe("required")
    expect(options({ functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } }, {}).toolChoice).toEqual({
      name: "f",
    })
    expect(options(undefined, { thinkingConfig: { thinkingBudget: 0 } }).thinking).toBe(false)
    expect(options(undefined, { thinkingConfig: { thinkingBudget: -1, includeThoughts: true } }).thinking).toEqual({})
    expect(options(undefined, { thinkingConfig: { thinkingLevel: "LOW", includeThoughts: true } }).thinking).toEqual({
      effort: "low",
    })
    expect(options(undefined, { thinkingConfig: {} }).thinking).toBeUndefined()
    expect(options(undefined, {}).stream).toBe(false)
  })

  it("refuses malformed bodies with an invalid-request error naming the JSON path", () => {
    const cases: [unknown, string][] = [
      ["text", "request body: must be an object"],
      [{}, "contents: must be a list"],
      [{ contents: [] }, "contents: at least one content is required"],
      [{ contents: [{ role: "user" }] }, "contents[0].parts: at least one part is required"],
      [{ contents: [{ role: "system", parts: [{ text: "x" }] }] }, 'contents[0].role: must be "user" or "model"'],
      [{ contents: [{ parts: [{ text: 3 }] }] }, "contents[0].parts[0].text: must be a string"],
      [
        { contents: [{ role: "model", parts: [{ functionCall: { args: {} } }] }] },
        "contents[0].parts[0].functionCall.name: is required",
      ],
      [
        { contents: [{ parts: [{ inlineData: { mimeType: "image/png" } }] }] },
        "contents[0].parts[0].inlineData.data: is required",
      ],
      [{ contents: [{ parts: [{ text: "x" }] }], tools: {} }, "tools: must be a list"],
      [
        { contents: [{ parts: [{ text: "x" }] }], tools: [{ functionDeclarations: [{}] }] },
        "tools[0].functionDeclarations[0].name: is required",
      ],
      [
        { contents: [{ parts: [{ text: "x" }] }], generationConfig: { maxOutputTokens: "9" } },
        "generationConfig.maxOutputTokens: must be a number",
      ],
    ]
    for (const [body, message] of cases) {
      const error = errorOf(body)
      expect(error).toBeInstanceOf(ProviderError)
      expect([error.kind, error.message]).toEqual(["invalid-request", message])
    }
  })
})

describe("Gemini request decoding: properties", () => {
  it("decodeRequest(encode(x)) gives back x's messages, system prompt, tools and options (as `expected` defines)", () => {
    fc.assert(
      fc.property(
        historyArb,
        toolsArb,
        fc.record({
          maxTokens: fc.integer({ min: 1, max: 65536 }),
          temperature: fc.option(
            fc.integer({ min: 0, max: 20 }).map((t) => t / 10),
            { nil: undefined },
          ),
          toolChoice: fc.option(
            fc.oneof(fc.constantFrom("auto", "none", "required"), fc.record({ name: fc.constant("read") })),
            {
              nil: undefined,
            },
          ),
        }),
        fc.constantFrom(model, gemini25),
        (messages, tools, raw, target) => {
          const options = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined)) as EncodeOptions
          const prompt = { text: "You are a coding agent.", tools }
          const body = encodeGemini({ prompt, messages, model: target, options }).body
          const decoded = decodeGeminiRequest(JSON.parse(JSON.stringify(body)), { model: target.id })
          expect(decoded.messages).toEqual(expectedMessages(messages))
          expect(decoded.prompt.text).toBe(prompt.text)
          expect(decoded.prompt.tools.map((t) => [t.name, t.description, t.parameters])).toEqual(
            tools.map((t) => [t.name, t.description, t.parameters]),
          )
          // Without tools the body has no tool config, and a choice of a tool it does not offer is not sent
          // (toEqual ignores the undefined fields).
          const offered = options.toolChoice !== undefined && choiceOffered(options.toolChoice, tools)
          const toolChoice = tools.length > 0 && offered ? options.toolChoice : undefined
          expect(decoded.options).toEqual({ stream: false, ...options, toolChoice })
          expect(decoded.unmodeled).toEqual([])
        },
      ),
    )
  })

  it("lists hidden thoughts as unmodeled: Gemini 3's lowest level, which is how the encoder says thinking off", () => {
    const { first, second, decoded } = reencode([], { thinking: false })
    expect(first.generationConfig?.thinkingConfig).toEqual({ thinkingLevel: "LOW" })
    expect(decoded.options.thinking).toEqual({ effort: "low" })
    expect(decoded.unmodeled).toEqual(["generationConfig.thinkingConfig"])
    expect(second.generationConfig?.thinkingConfig).toEqual({ thinkingLevel: "LOW", includeThoughts: true })
  })

  it("any history: encoding what was decoded gives the same body (nothing the encoder wrote is lost)", () => {
    fc.assert(
      fc.property(
        anyHistory(model.id),
        fc.constantFrom(model, gemini25),
        fc.constantFrom<EncodeOptions>(
          {},
          { thinking: { effort: "high" } },
          { thinking: { budgetTokens: 4096 } },
          { thinking: false },
          { toolChoice: "required", temperature: 0.5 },
        ),
        (messages, target, options) => {
          // Gemini 3 cannot turn thinking off: the encoder sends the lowest level with hidden thoughts (below).
          fc.pre(!(options.thinking === false && target === model))
          const { first, second, decoded } = reencode(messages, options, target)
          expect(second).toEqual(first)
          expect(decoded.unmodeled).toEqual([])
        },
      ),
    )
  })
})
