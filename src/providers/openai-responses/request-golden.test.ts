import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FIXTURE_DIR } from "../../../test/fixtures/providers/requests/load.js"
import { ProviderError } from "../errors.js"
import { decodeOpenAIResponsesRequest as decode } from "./request-decode.js"

const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
const shell = {
  type: "object",
  properties: { command: { type: "array", items: { type: "string" } } },
  required: ["command"],
}

/** A coding agent's stateless turn (the shape Codex-style clients send): every kind of item and tool. */
const agentTurn = {
  model: "gpt-5.1-codex",
  instructions: "You are a coding agent.",
  input: [
    { type: "message", role: "developer", content: [{ type: "input_text", text: "<permissions>ask</permissions>" }] },
    {
      type: "message",
      role: "user",
      content: [
        { type: "input_text", text: "Fix the test." },
        { type: "input_image", image_url: `data:image/png;base64,${png}`, detail: "auto" },
        { type: "input_image", file_id: "file-abc", detail: "auto" },
      ],
    },
    {
      type: "reasoning",
      id: "rs_1",
      summary: [
        { type: "summary_text", text: "**Plan**" },
        { type: "summary_text", text: "Read the test." },
      ],
      encrypted_content: "gAAAAB-secret",
    },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Reading it.", annotations: [] }] },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "shell", arguments: '{"command":["cat","t.ts"]}' },
    { type: "function_call_output", call_id: "call_1", output: "test('x')" },
    { type: "custom_tool_call", call_id: "call_2", name: "apply_patch", input: "*** Begin Patch" },
    { type: "custom_tool_call_output", call_id: "call_2", output: "Done." },
    { type: "item_reference", id: "msg_old" },
    { type: "compaction", encrypted_content: "compacted" },
    { type: "a_future_item", payload: 1 },
    { role: "user", content: "Thanks; now run it." },
  ],
  tools: [
    { type: "function", name: "shell", description: "Runs a command.", parameters: shell, strict: false },
    { type: "custom", name: "apply_patch", format: { type: "text" } },
    { type: "web_search" },
    { type: "mcp", server_label: "docs", server_url: "https://example.invalid/mcp" },
  ],
  tool_choice: "auto",
  parallel_tool_calls: false,
  reasoning: { effort: "medium", summary: "detailed" },
  store: false,
  stream: true,
  include: ["reasoning.encrypted_content", "web_search_call.action.sources"],
  prompt_cache_key: "019a-session",
  prompt_cache_retention: "24h",
  text: { verbosity: "low" },
  truncation: "auto",
  metadata: { run: "1" },
  service_tier: "priority",
  context_management: [{ type: "compaction", compact_threshold: 100000 }],
  previous_response_id: null,
}

describe("OpenAI Responses request decoder: real-shaped bodies", () => {
  it("reads a coding agent's turn and names everything it does not model", () => {
    const decoded = decode(agentTurn)
    expect(decoded.model).toBe("gpt-5.1-codex")
    expect(decoded.prompt.text).toBe("You are a coding agent.")
    expect(decoded.messages).toEqual([
      { id: "m1", role: "system", ts: 0, content: [{ type: "text", text: "<permissions>ask</permissions>" }] },
      {
        id: "m2",
        role: "user",
        ts: 0,
        content: [
          { type: "text", text: "Fix the test." },
          { type: "image", mediaType: "image/png", data: png },
        ],
      },
      {
        id: "m3",
        role: "assistant",
        ts: 0,
        content: [
          { type: "thinking", text: "**Plan**\n\nRead the test.", id: "rs_1", signature: "gAAAAB-secret" },
          { type: "text", text: "Reading it." },
          { type: "tool_use", id: "call_1", name: "shell", input: { command: ["cat", "t.ts"] } },
        ],
      },
      {
        id: "m4",
        role: "user",
        ts: 0,
        content: [{ type: "tool_result", toolUseId: "call_1", content: "test('x')" }],
      },
      // The compaction item is kept as its own block, where it stands.
      {
        id: "m5",
        role: "assistant",
        ts: 0,
        content: [{ type: "compaction", format: "openai-responses", payload: "compacted" }],
      },
      { id: "m6", role: "user", ts: 0, content: [{ type: "text", text: "Thanks; now run it." }] },
    ])
    expect(decoded.prompt.tools.map((t) => [t.id, t.kind, t.parameters])).toEqual([["shell", "client", shell]])
    expect(decoded.options).toEqual({
      stream: true,
      toolChoice: "auto",
      parallelToolCalls: false,
      store: false,
      thinking: { effort: "medium" },
      cache: { sessionId: "019a-session", retention: "24h" },
      contextManagement: { compaction: { trigger: 100000 } },
    })
    expect(decoded.unmodeled).toEqual([
      "input[1].content[2]",
      "input[6]",
      "input[7]",
      "input[8]",
      "input[10]",
      "tools[1]",
      "tools[2]",
      "tools[3]",
      "reasoning.summary",
      "text.verbosity",
      "include[1]",
      "truncation",
      "metadata",
      "service_tier",
    ])
    expect(decoded.diagnostics).toEqual([])
  })

  it("a body that continues a stored response lists previous_response_id and warns", () => {
    const decoded = decode({
      model: "gpt-5",
      previous_response_id: "resp_123",
      a_field_newer_than_the_sdk: { on: true },
      input: [{ type: "function_call_output", call_id: "call_1", output: [{ type: "input_text", text: "ok" }] }],
    })
    expect(decoded.unmodeled).toEqual(["previous_response_id", "a_field_newer_than_the_sdk"])
    expect(decoded.diagnostics.map((d) => d.code)).toEqual(["previous-response-unmodeled"])
    expect(decoded.messages).toEqual([
      {
        id: "m1",
        role: "user",
        ts: 0,
        content: [{ type: "tool_result", toolUseId: "call_1", content: [{ type: "text", text: "ok" }] }],
      },
    ])
    expect(decoded.options).toEqual({ stream: false })
  })

  it("without instructions, system and developer items at the start are the system prompt", () => {
    const decoded = decode({
      model: "gpt-4.1",
      input: [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "input_text", text: "Answer in English." }] },
        { role: "user", content: "hi" },
        { role: "system", content: "Mode: plan." },
      ],
      temperature: 0.2,
      max_output_tokens: 512,
      reasoning: { effort: "none" },
    })
    expect(decoded.prompt.text).toBe("You are terse.\n\nAnswer in English.")
    expect(decoded.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", [{ type: "text", text: "hi" }]],
      ["system", [{ type: "text", text: "Mode: plan." }]],
    ])
    expect(decoded.options).toEqual({ stream: false, temperature: 0.2, maxTokens: 512, thinking: false })
    expect(decoded.unmodeled).toEqual([])
  })

  it("reads a plain string input, and reasoning kept on the server (no encrypted content) with a note", () => {
    expect(decode({ model: "gpt-5", input: "Hello" }).messages).toEqual([
      { id: "m1", role: "user", ts: 0, content: [{ type: "text", text: "Hello" }] },
    ])
    const stored = decode({
      model: "gpt-5",
      input: [
        { role: "user", content: "q" },
        { type: "reasoning", id: "rs_9", summary: [] },
        { type: "message", role: "assistant", content: "a", phase: "final_answer" },
      ],
    })
    expect(stored.messages[1]!.content).toEqual([
      { type: "thinking", text: "", id: "rs_9" },
      { type: "text", text: "a" },
    ])
    expect(stored.diagnostics.map((d) => d.code)).toEqual(["reasoning-without-encrypted-content"])
    expect(stored.unmodeled).toEqual(["input[2].phase"])
  })

  it("reads back the checked-in golden body of the encoder", () => {
    const golden = JSON.parse(readFileSync(join(FIXTURE_DIR, "openai-responses.golden.json"), "utf8"))
    const decoded = decode(golden.body)
    expect(decoded.unmodeled).toEqual([])
    expect(decoded.prompt.text).toBe(golden.body.instructions)
    expect(decoded.prompt.tools.map((t) => t.name)).toEqual(golden.body.tools.map((t: { name: string }) => t.name))
    const blocks = decoded.messages.flatMap((m) => m.content.map((b) => b.type))
    expect(blocks.filter((b) => b === "tool_use")).toHaveLength(5)
    expect(blocks.filter((b) => b === "tool_result")).toHaveLength(5)
  })

  it("refuses a malformed body with an error naming the field", () => {
    const cases: [unknown, string][] = [
      [[], "request body"],
      [{ input: "x" }, "model"],
      [{ model: "m", input: 3 }, "input"],
      [{ model: "m", input: [5] }, "input[0]"],
      [{ model: "m", input: [{ role: "tool", content: "x" }] }, "input[0].role"],
      [{ model: "m", input: [{ type: "function_call", name: "f", arguments: "{}" }] }, "input[0].call_id"],
      [{ model: "m", input: [{ type: "function_call_output", call_id: "c", output: 1 }] }, "input[0].output"],
      [{ model: "m", input: [{ role: "user", content: [{ type: "input_text" }] }] }, "input[0].content[0].text"],
      [{ model: "m", input: [{ type: "reasoning", id: "r" }] }, "input[0].summary"],
      [
        {
          model: "m",
          input: [{ role: "system", content: [{ type: "input_image", image_url: `data:image/png;base64,${png}` }] }],
        },
        "input[0].content",
      ],
      [{ model: "m", tools: [{ type: "function" }] }, "tools[0].name"],
      [{ model: "m", max_output_tokens: "9" }, "max_output_tokens"],
      [{ model: "m", include: "x" }, "include"],
    ]
    for (const [body, path] of cases) {
      let error: unknown
      try {
        decode(body)
      } catch (e) {
        error = e
      }
      expect(error, path).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).kind).toBe("invalid-request")
      expect((error as ProviderError).message.startsWith(`${path}:`), (error as Error).message).toBe(true)
    }
  })
})
