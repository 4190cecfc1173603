import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { expectGolden, FIXTURE_DIR } from "../../../test/fixtures/providers/requests/load.js"
import { ProviderError } from "../errors.js"
import { decodeAnthropicRequest } from "./request-decode.js"

const fixture = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>
const png = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" }

describe("Anthropic request decoding: real-shaped bodies", () => {
  it("reads Claude Code's first request (?beta=true) and lists what it does not model", () => {
    const body = fixture("test/fixtures/providers/client-requests/claude-code-2.1.197-first.json")
    const decoded = decodeAnthropicRequest(body, { stream: true })
    expect(decoded.model).toBe("claude-opus-4-8")
    expect(decoded.prompt.text).toBe(
      "Placeholder system text 24.\n\nPlaceholder system text 25.\n\nPlaceholder system text 26.",
    )
    expect(decoded.diagnostics.map((d) => d.code)).toEqual(["system-blocks-joined"])
    expect(decoded.messages).toEqual([
      {
        id: "m1",
        role: "user",
        ts: 0,
        content: [
          { type: "text", text: "Placeholder user text 21." },
          { type: "text", text: "Placeholder user text 22." },
        ],
      },
      { id: "m2", role: "system", ts: 0, content: [{ type: "text", text: "Placeholder system text 23." }] },
    ])
    const tools = body.tools as { name: string; input_schema: unknown }[]
    expect(decoded.prompt.tools.map((t) => t.name)).toEqual(tools.map((t) => t.name))
    expect(decoded.prompt.tools[1]).toMatchObject({ id: "Bash", kind: "client", snippet: "", guidelines: [] })
    expect(decoded.prompt.tools[1]!.parameters).toEqual(tools[1]!.input_schema)
    expect(decoded.options).toEqual({
      maxTokens: 64000,
      stream: true,
      thinking: { effort: "high" },
      // Two system breakpoints and one on the last user message, all 5 minutes.
      cache: { ttl: "5m", breakpoints: { tools: false, system: true, userMessages: 1 } },
      contextManagement: { clearThinking: { keep: "all" } },
    })
    expect(decoded.unmodeled).toEqual(["metadata"])
  })

  it("reads its own encoder's golden body for the mixed history (golden file)", () => {
    const golden = fixture(`${FIXTURE_DIR}/anthropic.golden.json`)
    expectGolden("anthropic-decoded", decodeAnthropicRequest(golden.body))
  })

  it("reads every block the internal format has, and lists the blocks it has no place for", () => {
    const decoded = decodeAnthropicRequest({
      model: "claude-sonnet-4-6",
      max_tokens: 4096,
      system: "Be brief.",
      thinking: { type: "enabled", budget_tokens: 2048 },
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "Look:", cache_control: { type: "ephemeral", ttl: "1h" } },
            { type: "image", source: png },
            { type: "image", source: { type: "url", url: "https://example.invalid/a.png" } },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "doc" } },
            { type: "search_result", source: "s", title: "t", content: [{ type: "text", text: "r" }] },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Hmm.", signature: "sig==" },
            { type: "redacted_thinking", data: "ENC" },
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "x" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "mcp_tool_use", id: "mcptoolu_1", name: "q", server_name: "docs", input: {} },
            { type: "text", text: "Reading.", citations: [{ type: "char_location", cited_text: "x" }] },
            { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" }, caller: { type: "direct" } },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              tool_use_id: "toolu_1",
              is_error: true,
              content: [
                { type: "text", text: "no such file" },
                { type: "image", source: png },
                { type: "search_result", source: "s", title: "t", content: [] },
              ],
            },
            { type: "tool_result", tool_use_id: "toolu_2" },
            { type: "mcp_tool_result", tool_use_id: "mcptoolu_1", content: "r" },
          ],
        },
      ],
    })
    expect(decoded.prompt.text).toBe("Be brief.")
    expect(decoded.messages.map((m) => m.content)).toEqual([
      [
        { type: "text", text: "Look:" },
        { type: "image", mediaType: "image/png", data: png.data },
      ],
      [
        { type: "thinking", text: "Hmm.", signature: "sig==" },
        { type: "redacted_thinking", data: "ENC" },
        { type: "text", text: "Reading." },
        { type: "tool_use", id: "toolu_1", name: "read_file", input: { path: "a" } },
      ],
      [
        {
          type: "tool_result",
          toolUseId: "toolu_1",
          isError: true,
          content: [
            { type: "text", text: "no such file" },
            { type: "image", mediaType: "image/png", data: png.data },
          ],
        },
        { type: "tool_result", toolUseId: "toolu_2", content: "" },
      ],
    ])
    expect(decoded.options).toEqual({
      maxTokens: 4096,
      stream: false,
      toolChoice: "auto",
      parallelToolCalls: false,
      thinking: { budgetTokens: 2048 },
      cache: { ttl: "1h", breakpoints: { tools: false, system: false, userMessages: 1 } },
    })
    expect(decoded.unmodeled).toEqual([
      "messages[0].content[2]",
      "messages[0].content[3]",
      "messages[0].content[4]",
      "messages[1].content[2]",
      "messages[1].content[3]",
      "messages[1].content[4]",
      "messages[1].content[5].citations",
      "messages[1].content[6].caller",
      "messages[2].content[0].content[2]",
      "messages[2].content[2]",
    ])
  })

  it("lists server tools, beta fields and unknown fields, and reads tool choice, effort and thinking off", () => {
    const decoded = decodeAnthropicRequest({
      model: "claude-opus-4-8",
      max_tokens: 1000,
      stream: true,
      temperature: 0.2,
      top_k: 5,
      stop_sequences: ["END"],
      system: [{ type: "text", text: "Rules.", cache_control: { type: "ephemeral" } }],
      thinking: { type: "disabled" },
      output_config: { effort: "low", format: { type: "json_schema", schema: {} } },
      tool_choice: { type: "tool", name: "read_file" },
      tools: [
        { name: "read_file", description: "Read", input_schema: { type: "object", properties: {} }, strict: true },
        { type: "custom", name: "grep", input_schema: { type: "object" }, cache_control: { type: "ephemeral" } },
        { type: "web_search_20250305", name: "web_search", max_uses: 2 },
        { type: "bash_20250124", name: "bash" },
        { type: "text_editor_20250728", name: "str_replace_based_edit_tool" },
        { type: "code_execution_20250825", name: "code_execution" },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
      messages: [{ role: "user", content: "Hi" }],
      context_management: { edits: [] },
      mcp_servers: [{ type: "url", url: "https://example.invalid/mcp", name: "docs" }],
      container: "container_1",
      service_tier: "auto",
      metadata: { user_id: "u" },
      betas: ["context-management-2025-06-27"],
      a_field_from_the_future: 1,
    })
    expect(decoded.prompt.tools.map((t) => [t.name, t.description])).toEqual([
      ["read_file", "Read"],
      ["grep", ""],
    ])
    expect(decoded.options).toEqual({
      maxTokens: 1000,
      stream: true,
      temperature: 0.2,
      toolChoice: { name: "read_file" },
      thinking: false,
      responseFormat: { type: "json-schema", schema: {} },
      cache: { ttl: "5m", breakpoints: { tools: true, system: true, userMessages: 0 } },
    })
    expect(decoded.messages).toEqual([{ id: "m1", role: "user", ts: 0, content: [{ type: "text", text: "Hi" }] }])
    expect(decoded.unmodeled).toEqual([
      "tools[0].strict",
      "tools[2]",
      "tools[3]",
      "tools[4]",
      "tools[5]",
      "tools[6]",
      // Effort with thinking off is not promptline's to model.
      "output_config.effort",
      "top_k",
      "stop_sequences",
      "mcp_servers",
      "container",
      "service_tier",
      "metadata",
      "betas",
      "a_field_from_the_future",
    ])
  })

  it("reads deferred tools beside Anthropic's tool search as nativeToolSearch, and automatic caching", () => {
    const schema = { type: "object", properties: {}, required: [] }
    const decoded = decodeAnthropicRequest({
      model: "m",
      max_tokens: 10,
      cache_control: { type: "ephemeral", ttl: "1h" },
      thinking: { type: "adaptive" },
      tool_choice: { type: "none" },
      tools: [
        { name: "deep", description: "d", input_schema: schema, defer_loading: true },
        { name: "near", description: "n", input_schema: schema },
        { type: "tool_search_tool_bm25_20251119", name: "tool_search_tool_bm25" },
      ],
      messages: [{ role: "user", content: [] }],
    })
    expect(decoded.prompt.tools.map((t) => t.name)).toEqual(["near"])
    expect(decoded.prompt.deferredTools?.map((t) => t.name)).toEqual(["deep"])
    expect(decoded.options).toEqual({
      maxTokens: 10,
      stream: false,
      thinking: {},
      toolChoice: "none",
      cache: { ttl: "1h" },
      nativeToolSearch: true,
    })
    expect(decoded.unmodeled).toEqual([])
  })

  it("refuses malformed bodies with an invalid-request error naming the JSON path", () => {
    const base = { model: "m", max_tokens: 10 }
    const cases: [unknown, string][] = [
      [[1, 2], "request body: must be a JSON object"],
      [{ max_tokens: 10, messages: [] }, "model: a model id is required"],
      [{ ...base, messages: "hi" }, "messages: must be a list of messages"],
      [{ ...base, messages: [{ role: "tool", content: "x" }] }, 'messages[0].role: must be "user"'],
      [{ ...base, messages: [{ role: "user", content: 3 }] }, "messages[0].content: must be a string or a list"],
      [{ ...base, messages: [{ role: "user", content: [{ text: "x" }] }] }, "messages[0].content[0]: a content block"],
      [{ ...base, messages: [{ role: "user", content: [{ type: "text" }] }] }, "messages[0].content[0].text: a string"],
      [
        { ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", name: "a", input: {} }] }] },
        "messages[0].content[0].id: a string is required",
      ],
      [
        { ...base, messages: [{ role: "user", content: [{ type: "tool_result", content: "x" }] }] },
        "messages[0].content[0].tool_use_id",
      ],
      [
        { ...base, messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", data: "x" } }] }] },
        "messages[0].content[0].source.media_type",
      ],
      [
        { ...base, messages: [{ role: "system", content: [{ type: "image", source: png }] }] },
        "messages[0].content[0]: a system message holds text blocks only",
      ],
      [{ ...base, messages: [], system: [{ type: "image", source: png }] }, "system[0]: the system prompt holds text"],
      [{ ...base, messages: [], tools: [{ input_schema: {} }] }, "tools[0].name: a tool name is required"],
      [{ ...base, messages: [], tools: [{ name: "a" }] }, "tools[0].input_schema: a JSON schema object"],
      [{ ...base, messages: [], tool_choice: { type: "sometimes" } }, "tool_choice.type: must be"],
      [{ ...base, messages: [], tool_choice: { type: "tool" } }, "tool_choice.name"],
      [{ ...base, messages: [], thinking: { type: "enabled" } }, "thinking.budget_tokens"],
      [{ ...base, max_tokens: "many", messages: [] }, "max_tokens: a positive integer"],
    ]
    for (const [body, message] of cases) {
      let thrown: unknown
      try {
        decodeAnthropicRequest(body)
      } catch (error) {
        thrown = error
      }
      expect(thrown, message).toBeInstanceOf(ProviderError)
      expect((thrown as ProviderError).kind).toBe("invalid-request")
      expect((thrown as ProviderError).message).toContain(message)
    }
  })
})
