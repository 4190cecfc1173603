import { readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions"
import { describe, expect, it } from "vitest"
import { FIXTURE_DIR, fixtureModel } from "../../../test/fixtures/providers/requests/load.js"
import { encodeDeepSeek } from "../deepseek/encode.js"
import { ProviderError } from "../errors.js"
import type { DecodedRequest } from "../types.js"
import { encodeOpenAIChat } from "./encode.js"
import { decodeChatRequest } from "./request-decode.js"

const golden = (name: string) =>
  (JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.golden.json`), "utf8")) as { body: Record<string, unknown> }).body

const PNG = "iVBORw0KGgo="

/** A body as a current OpenAI client sends it, with every field promptline does not model. */
const everything = {
  model: "gpt-5.4",
  messages: [
    { role: "developer", content: "You are terse." },
    { role: "system", content: [{ type: "text", text: "Use tools." }] },
    {
      role: "user",
      name: "ana",
      content: [
        { type: "text", text: "What is in these?" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
        { type: "image_url", image_url: { url: "https://example.com/cat.png" } },
        { type: "input_audio", input_audio: { data: "AAAA", format: "wav" } },
        { type: "file", file: { file_id: "file-1" } },
      ],
    },
    {
      role: "assistant",
      content: null,
      refusal: null,
      audio: { id: "audio_1" },
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "look", arguments: '{"at":"a.png"}' } },
        { id: "call_2", type: "custom", custom: { name: "patch", input: "*** Begin Patch" } },
      ],
    },
    { role: "tool", tool_call_id: "call_1", content: "a cat" },
    { role: "user", content: "Thanks." },
    { role: "developer", content: "Mode: plan." },
  ],
  tools: [
    { type: "function", function: { name: "look", description: "Looks.", parameters: { type: "object" } } },
    { type: "custom", custom: { name: "patch", format: { type: "text" } } },
  ],
  tool_choice: "required",
  parallel_tool_calls: false,
  max_completion_tokens: 2048,
  reasoning_effort: "low",
  stream: true,
  stream_options: { include_usage: true, include_obfuscation: false },
  prompt_cache_key: "conv-7",
  prompt_cache_retention: "24h",
  metadata: { app: "x" },
  response_format: { type: "json_object" },
  logprobs: true,
  top_logprobs: 2,
  n: 2,
  seed: 7,
  user: "u-1",
  service_tier: "flex",
  store: true,
  modalities: ["text"],
  audio: { voice: "alloy", format: "wav" },
  web_search_options: {},
  verbosity: "low",
  top_p: 0.5,
  stop: ["\n\n"],
  temperature: null,
} satisfies ChatCompletionCreateParamsStreaming & Record<string, unknown>

function invalid(body: unknown): string {
  try {
    decodeChatRequest(body)
  } catch (error) {
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).kind).toBe("invalid-request")
    return (error as Error).message
  }
  throw new Error("the body was accepted")
}

describe("Chat Completions request decoding", () => {
  it("reads a body with every current field: modeled ones as options, the rest as unmodeled paths", () => {
    const decoded = decodeChatRequest(everything)
    expect(decoded.model).toBe("gpt-5.4")
    expect(decoded.prompt.text).toBe("You are terse.\n\nUse tools.")
    expect(decoded.prompt.tools.map((t) => [t.id, t.kind, t.name, t.description])).toEqual([
      ["look", "client", "look", "Looks."],
    ])
    expect(decoded.prompt.tools[0]!.parameters).toEqual({ type: "object", properties: {}, required: [] })
    expect(decoded.messages).toEqual([
      {
        id: "m1",
        role: "user",
        ts: 0,
        content: [
          { type: "text", text: "What is in these?" },
          { type: "image", mediaType: "image/png", data: PNG },
        ],
      },
      {
        id: "m2",
        role: "assistant",
        ts: 0,
        content: [{ type: "tool_use", id: "call_1", name: "look", input: { at: "a.png" } }],
      },
      {
        id: "m3",
        role: "user",
        ts: 0,
        content: [
          { type: "tool_result", toolUseId: "call_1", content: "a cat" },
          { type: "text", text: "Thanks." },
        ],
      },
      { id: "m4", role: "system", ts: 0, content: [{ type: "text", text: "Mode: plan." }] },
    ])
    expect(decoded.options).toEqual({
      toolChoice: "required",
      parallelToolCalls: false,
      maxTokens: 2048,
      thinking: { effort: "low" },
      responseFormat: { type: "json" },
      stream: true,
      cache: { sessionId: "conv-7", retention: "24h" },
      compat: {
        maxTokensField: "max_completion_tokens",
        reasoningEffort: true,
        streamUsage: true,
        promptCache: true,
        systemRole: "developer",
      },
    })
    expect([...decoded.unmodeled].sort()).toEqual(
      [
        "metadata",
        "logprobs",
        "top_logprobs",
        "seed",
        "user",
        "service_tier",
        "store",
        "modalities",
        "audio",
        "web_search_options",
        "verbosity",
        "top_p",
        "stop",
        "n",
        "stream_options.include_obfuscation",
        "messages[2].name",
        "messages[2].content[1].image_url.detail",
        "messages[2].content[2]",
        "messages[2].content[3]",
        "messages[2].content[4]",
        "messages[3].audio",
        "messages[3].tool_calls[1]",
        "tools[1]",
      ].sort(),
    )
    expect(decoded.diagnostics.map((d) => d.code)).toEqual(["system-messages-joined"])
  })

  it("never refuses a field it does not know: each one with a value is listed, at the top and in messages", () => {
    const known = new Set([...Object.keys(everything), "tools", "functions", "function_call", "thinking", "__proto__"])
    const extras = fc.dictionary(
      fc.stringMatching(/^[a-z_]{1,12}$/).filter((k) => !known.has(k)),
      fc.oneof(fc.jsonValue(), fc.constant(null)),
      { maxKeys: 4 },
    )
    const messageKnown = new Set(["role", "content", "tool_calls", "function_call", "reasoning_content", "refusal"])
    fc.assert(
      fc.property(extras, extras, (top, inMessage) => {
        const fields = Object.fromEntries(Object.entries(inMessage).filter(([k]) => !messageKnown.has(k)))
        const body = { ...top, model: "m", messages: [{ role: "user", content: "x", ...fields }] }
        const listed = decodeChatRequest(body).unmodeled
        const expected = [
          ...Object.keys(top).filter((k) => top[k] !== null),
          ...Object.keys(fields)
            .filter((k) => fields[k] !== null)
            .map((k) => `messages[0].${k}`),
        ]
        expect([...listed].sort()).toEqual(expected.sort())
      }),
    )
  })

  it.each([
    ["openai-chat", (d: DecodedRequest) => encodeOpenAIChat({ ...d, model: fixtureModel("openai-chat") })],
    ["deepseek", (d: DecodedRequest) => encodeDeepSeek({ ...d, model: fixtureModel("deepseek") })],
  ] as const)("reads the %s golden body back so that encoding it again gives the same body", (format, encode) => {
    const body = golden(format)
    const decoded = decodeChatRequest(body, format)
    expect(decoded.unmodeled).toEqual([])
    expect(encode(decoded).body).toEqual(body)
  })

  it("joins tool messages and the user message after them into one turn, and reads `Error: ` results as errors", () => {
    const decoded = decodeChatRequest({
      model: "m",
      messages: [
        { role: "user", content: "go" },
        { role: "user", content: "now" },
        {
          role: "assistant",
          content: "Reading.",
          tool_calls: [{ id: "a", type: "function", function: { name: "r", arguments: "" } }],
        },
        { role: "tool", tool_call_id: "a", content: "Error: no such file" },
        { role: "tool", tool_call_id: "b", name: "r", content: [{ type: "text", text: "x" }] },
        { role: "user", content: [{ type: "text", text: "and?" }] },
      ],
    })
    expect(decoded.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", [{ type: "text", text: "go" }]],
      ["user", [{ type: "text", text: "now" }]],
      [
        "assistant",
        [
          { type: "text", text: "Reading." },
          { type: "tool_use", id: "a", name: "r", input: {} },
        ],
      ],
      [
        "user",
        [
          { type: "tool_result", toolUseId: "a", content: "no such file", isError: true },
          { type: "tool_result", toolUseId: "b", content: [{ type: "text", text: "x" }] },
          { type: "text", text: "and?" },
        ],
      ],
    ])
    // The tool's name on a tool message (some compatible servers want it) is a compat setting, not a drop.
    expect(decoded.unmodeled).toEqual([])
    expect(decoded.options.compat).toEqual({ toolResultName: true })
  })

  it("pairs legacy function calls with their function messages, and reads `functions` and `function_call`", () => {
    const decoded = decodeChatRequest({
      model: "m",
      messages: [
        { role: "user", content: "look" },
        { role: "assistant", content: null, function_call: { name: "lookup", arguments: '{"q":1}' } },
        { role: "function", name: "lookup", content: "42" },
      ],
      functions: [{ name: "lookup", parameters: { type: "object", properties: { q: { type: "number" } } } }],
      function_call: { name: "lookup" },
    })
    const call = decoded.messages[1]!.content[0]
    expect(call).toMatchObject({ type: "tool_use", name: "lookup", input: { q: 1 } })
    expect(decoded.messages[2]!.content).toEqual([
      { type: "tool_result", toolUseId: (call as { id: string }).id, content: "42" },
    ])
    expect(decoded.prompt.tools.map((t) => t.name)).toEqual(["lookup"])
    expect(decoded.options.toolChoice).toEqual({ name: "lookup" })
  })

  it("reads every tool choice, and lists allowed-tools and custom choices as unmodeled", () => {
    const choice = (tool_choice: unknown) => {
      const d = decodeChatRequest({ model: "m", messages: [], tool_choice })
      return [d.options.toolChoice, d.unmodeled]
    }
    expect(choice("auto")).toEqual(["auto", []])
    expect(choice("none")).toEqual(["none", []])
    expect(choice("required")).toEqual(["required", []])
    expect(choice({ type: "function", function: { name: "f" } })).toEqual([{ name: "f" }, []])
    expect(choice({ type: "custom", custom: { name: "p" } })).toEqual([undefined, ["tool_choice"]])
    expect(choice({ type: "allowed_tools", allowed_tools: { mode: "auto", tools: [] } })).toEqual([
      undefined,
      ["tool_choice"],
    ])
  })

  it("reads the output limit from either field, thinking off as `none`, and n of 1 as nothing dropped", () => {
    const d = decodeChatRequest({ model: "m", messages: [], max_tokens: 100, reasoning_effort: "none", n: 1 })
    expect(d.options).toMatchObject({ maxTokens: 100, thinking: false, compat: { maxTokensField: "max_tokens" } })
    // Chat answers whole unless `stream: true`; promptline's encoders stream unless told not to.
    expect(d.options.stream).toBe(false)
    expect(d.unmodeled).toEqual([])
  })

  it("keeps arguments that are not JSON from failing the request: read as {} with a diagnostic naming the path", () => {
    const d = decodeChatRequest({
      model: "m",
      messages: [
        { role: "assistant", tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{oops" } }] },
      ],
    })
    expect(d.messages[0]!.content).toEqual([{ type: "tool_use", id: "c", name: "f", input: {} }])
    expect(d.diagnostics).toMatchObject([
      {
        code: "tool-arguments-invalid",
        message: expect.stringContaining("messages[0].tool_calls[0].function.arguments"),
      },
    ])
  })

  it("refuses what is not a Chat request, naming the JSON path at fault", () => {
    expect(invalid("hi")).toMatch(/^body:/)
    expect(invalid({ messages: [] })).toMatch(/^model:/)
    expect(invalid({ model: "m", messages: {} })).toMatch(/^messages:/)
    expect(invalid({ model: "m", messages: [{ role: "robot", content: "x" }] })).toMatch(/^messages\[0\]\.role:/)
    expect(invalid({ model: "m", messages: [{ role: "user", content: [{ text: "x" }] }] })).toMatch(
      /^messages\[0\]\.content\[0\]\.type:/,
    )
    expect(invalid({ model: "m", messages: [{ role: "user", content: [{ type: "text" }] }] })).toMatch(
      /^messages\[0\]\.content\[0\]\.text:/,
    )
    expect(invalid({ model: "m", messages: [{ role: "user", content: 3 }] })).toMatch(/^messages\[0\]\.content:/)
    expect(
      invalid({
        model: "m",
        messages: [{ role: "assistant", tool_calls: [{ type: "function", function: { name: "f" } }] }],
      }),
    ).toMatch(/^messages\[0\]\.tool_calls\[0\]\.id:/)
    expect(invalid({ model: "m", messages: [{ role: "tool", content: "x" }] })).toMatch(/^messages\[0\]\.tool_call_id:/)
    expect(
      invalid({ model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: {} }] }] }),
    ).toMatch(/^messages\[0\]\.content\[0\]\.image_url\.url:/)
    expect(invalid({ model: "m", messages: [], tools: [{ type: "function", function: {} }] })).toMatch(
      /^tools\[0\]\.function\.name:/,
    )
  })
})

describe("DeepSeek request decoding", () => {
  it("reads the thinking switch and earlier reasoning_content as thinking", () => {
    const d = decodeChatRequest(
      {
        model: "deepseek-v4-pro",
        thinking: { type: "enabled" },
        reasoning_effort: "high",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: "",
            reasoning_content: "Plan: call f.",
            tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: "{}" } }],
          },
        ],
      },
      "deepseek",
    )
    expect(d.options.thinking).toEqual({ effort: "high" })
    expect(d.messages[1]!.content).toEqual([
      { type: "thinking", text: "Plan: call f." },
      { type: "text", text: "" },
      { type: "tool_use", id: "c", name: "f", input: {} },
    ])
    expect(
      decodeChatRequest({ model: "d", messages: [], thinking: { type: "disabled" } }, "deepseek").options.thinking,
    ).toBe(false)
    expect(decodeChatRequest({ model: "d", messages: [], thinking: { type: "enabled" } }).unmodeled).toEqual([
      "thinking",
    ])
  })
})
