import { readFileSync } from "node:fs"
import Anthropic from "@anthropic-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import { anthropicFormat } from "./anthropic.js"
import { resolveTurn } from "./resolve.js"
import { type ReplayServer, startReplayServer } from "./server.js"
import {
  finalTurn,
  keyPaths,
  kindSequence,
  recordedStream,
  richTurn,
  sampleParameters,
  scriptOf,
} from "./test-helpers/fixtures.js"

const tools = [
  { name: "read_file", description: "Read a file", input_schema: sampleParameters },
  { name: "execute_command", description: "Run a command", input_schema: sampleParameters },
]

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function client(...turns: Parameters<typeof scriptOf>) {
  server = await startReplayServer({ script: scriptOf(...turns) })
  return new Anthropic({ apiKey: "test-key", baseURL: server.urls.anthropic, maxRetries: 0 })
}

const kind = (e: Record<string, unknown>) => {
  if (e.type === "ping") return ""
  const detail = (e.content_block ?? e.delta) as { type?: string } | undefined
  return e.type === "message_delta" ? "message_delta" : `${e.type}${detail?.type ? `:${detail.type}` : ""}`
}

describe("Anthropic Messages replay", () => {
  it("streams a turn the official SDK assembles exactly: thinking, text, tool calls, usage, stop reason", async () => {
    const anthropic = await client(richTurn, finalTurn)
    const message = await anthropic.messages
      .stream({
        model: "claude-haiku-4-5",
        max_tokens: 2048,
        thinking: { type: "enabled", budget_tokens: 1024 },
        tools,
        messages: [{ role: "user", content: "Fix the bug." }],
      })
      .finalMessage()
    expect(message.content).toEqual([
      { type: "thinking", thinking: richTurn.thinking, signature: expect.any(String) },
      { type: "text", text: richTurn.text },
      { type: "tool_use", id: "toolu_replay_0_0", name: "read_file", input: richTurn.toolCalls[0]!.input },
      { type: "tool_use", id: "toolu_replay_0_1", name: "execute_command", input: richTurn.toolCalls[1]!.input },
    ])
    expect(message.stop_reason).toBe("tool_use")
    expect(message.usage).toMatchObject({
      input_tokens: 120,
      output_tokens: 45,
      cache_read_input_tokens: 1000,
      cache_creation_input_tokens: 200,
    })
    expect(message.model).toBe("claude-haiku-4-5")
  })

  it("sends thinking only when the request enables it, as the API does", async () => {
    const anthropic = await client(richTurn)
    const message = await anthropic.messages
      .stream({ model: "claude-haiku-4-5", max_tokens: 512, tools, messages: [{ role: "user", content: "go" }] })
      .finalMessage()
    expect(message.content.map((b) => b.type)).toEqual(["text", "tool_use", "tool_use"])
  })

  it("answers a request made without streaming with the same message", async () => {
    const anthropic = await client(richTurn)
    const message = await anthropic.messages.create({
      model: "claude-haiku-4-5",
      max_tokens: 512,
      tools,
      messages: [{ role: "user", content: "go" }],
    })
    expect(message.content.at(-1)).toEqual({
      type: "tool_use",
      id: "toolu_replay_0_1",
      name: "execute_command",
      input: richTurn.toolCalls[1]!.input,
    })
    expect(message.usage.output_tokens).toBe(45)
  })

  it("writes the tool calls as XML text when the request declares no tools", async () => {
    const anthropic = await client(richTurn)
    const message = await anthropic.messages
      .stream({ model: "claude-haiku-4-5", max_tokens: 512, messages: [{ role: "user", content: "go" }] })
      .finalMessage()
    expect(message.content).toHaveLength(1)
    const text = (message.content[0] as { text: string }).text
    expect(text).toBe(
      `${richTurn.text}\n\n<read_file>\n<path>src/a.ts</path>\n<start_line>1</start_line>\n<end_line>40</end_line>\n</read_file>\n\n` +
        `<execute_command>\n<command>npm test -- --grep 'a b'</command>\n<requires_approval>false</requires_approval>\n<timeout>30</timeout>\n</execute_command>`,
    )
    expect(message.stop_reason).toBe("end_turn")
  })

  it("reads tool results (native and XML) from the request to check the turn's expectations", async () => {
    const anthropic = await client(
      { text: "Listing.", toolCalls: [{ name: "read_file", input: { path: "a" } }] },
      { text: "Seen it.", expect: { toolResults: [{ tool: "read_file", matches: "^line one" }] } },
      { text: "Seen the XML one.", expect: { toolResults: [{ tool: "execute_command", matches: "/EXIT 0/i" }] } },
    )
    const first = await anthropic.messages.create({
      model: "m",
      max_tokens: 64,
      tools,
      messages: [{ role: "user", content: "go" }],
    })
    const call = first.content.find((b) => b.type === "tool_use")!
    const second = await anthropic.messages.create({
      model: "m",
      max_tokens: 64,
      tools,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: "line one\nline two" }] },
      ],
    })
    expect(second.content).toEqual([{ type: "text", text: "Seen it." }])
    const third = await anthropic.messages.create({
      model: "m",
      max_tokens: 64,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: "<execute_command>\n<command>ls</command>\n</execute_command>" },
        { role: "user", content: '<tool_result tool="execute_command">\nexit 0\n</tool_result>' },
      ],
    })
    expect(third.content).toEqual([{ type: "text", text: "Seen the XML one." }])
    expect(server!.divergences).toEqual([])
    server!.assertComplete()
  })

  it("emits the event sequence and payload fields of recorded Anthropic streams", () => {
    const render = (turn: Parameters<typeof scriptOf>[0], thinking: boolean, tooled = true) => {
      const body = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "x" }] } as Record<string, unknown>
      if (thinking) body.thinking = { type: "enabled", budget_tokens: 1024 }
      if (tooled) body.tools = tools
      const view = anthropicFormat.view(body, new Map(), {})
      const resolved = resolveTurn(scriptOf(turn).turns[0]!, 0, {
        dialect: view.dialect,
        callIdPrefix: "toolu_",
        requestChars: 10,
      })
      return anthropicFormat.events({ turn: resolved, view, body, created: 0, chunkSize: 8 })
    }
    const cases: [unknown[], string][] = [
      [render({ text: "Hello there, how are you doing today?" }, false), "anthropic-text.chunks.txt"],
      [
        render({ toolCalls: [{ name: "json", input: { elements: [1, 2] } }] }, false),
        "anthropic-json-tool.1.chunks.txt",
      ],
      [
        render({ thinking: "Let me think about it.", text: "925 / 5 = 185" }, true),
        "anthropic-clear-thinking.1.chunks.txt",
      ],
    ]
    for (const [ours, file] of cases) {
      const recorded = recordedStream("anthropic", file)
      expect(kindSequence(ours, kind), file).toEqual(kindSequence(recorded, kind))
      const recordedPaths = new Set(recorded.flatMap((e) => keyPaths(e).map((p) => `${e.type}:${p}`)))
      const invented = ours
        .flatMap((e) => keyPaths(e).map((p) => `${(e as { type: string }).type}:${p}`))
        .filter((p) => !recordedPaths.has(p))
      expect(invented, file).toEqual([])
    }
  })
})

describe("Anthropic Messages replay: the current API's request shapes", () => {
  const post = async (body: unknown) => {
    const res = await fetch(`${server!.urls.anthropic}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "test-key" },
      body: JSON.stringify(body),
    })
    return { status: res.status, json: (await res.json()) as Record<string, unknown> }
  }

  it("answers the first request of a real client: a system message inside messages, context_management, output_config", async () => {
    // Captured from Claude Code 2.1.197 pointed at this server; its prose replaced by placeholders.
    const captured = JSON.parse(
      readFileSync("test/fixtures/providers/client-requests/claude-code-2.1.197-first.json", "utf8"),
    ) as Record<string, unknown>
    server = await startReplayServer({
      script: scriptOf({ text: "Hello.", expect: { system: "Placeholder system text 23", userText: "user text 22" } }),
    })
    const { status } = await post({ ...captured, stream: false })
    expect(status).toBe(200)
    expect(server.requests[0]).toMatchObject({ outcome: "answered", problems: [] })
    expect(server.requests[0]!.unknownFields).toBeUndefined()
  })

  it("reads a mid-conversation system message as system text, never as the user's", async () => {
    server = await startReplayServer({ script: scriptOf({ text: "Noted.", expect: { userText: "^Go on\\.$" } }) })
    const { status } = await post({
      model: "claude-opus-4-8",
      max_tokens: 100,
      messages: [
        { role: "user", content: "Go on." },
        { role: "system", content: [{ type: "text", text: "Mode: act.", cache_control: { type: "ephemeral" } }] },
      ],
    })
    expect(status).toBe(200)
  })

  it("accepts beta fields and tool types, and records fields the API does not define", async () => {
    server = await startReplayServer({ script: scriptOf({ text: "Done." }) })
    const { status } = await post({
      model: "claude-opus-4-8",
      max_tokens: 1000,
      system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral", ttl: "1h" } }],
      messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      thinking: { type: "adaptive" },
      output_config: { effort: "low" },
      context_management: { edits: [{ type: "clear_tool_uses_20250919" }] },
      mcp_servers: [{ type: "url", url: "https://example.invalid/mcp", name: "docs" }],
      container: "container_1",
      tools: [
        { name: "read_file", description: "Read a file", input_schema: sampleParameters },
        { type: "bash_20250124", name: "bash" },
        { type: "web_search_20250305", name: "web_search", max_uses: 2 },
        { type: "mcp_toolset", mcp_server_name: "docs" },
      ],
      a_field_from_the_future: true,
    })
    expect(status).toBe(200)
    expect(server.requests[0]!.unknownFields).toEqual(["a_field_from_the_future"])
  })

  it("still refuses what the API refuses: an unknown role, a system message holding an image", async () => {
    server = await startReplayServer({ script: scriptOf({ text: "Done." }) })
    const image = { type: "image", source: { type: "base64", media_type: "image/png", data: "AA==" } }
    const { status, json } = await post({
      model: "claude-opus-4-8",
      max_tokens: 100,
      messages: [
        { role: "user", content: "Hi" },
        { role: "system", content: [image] },
        { role: "tool", content: "x" },
      ],
    })
    expect(status).toBe(400)
    expect(JSON.stringify(json)).toContain("messages.1.content.0: a system message holds text blocks")
    expect(JSON.stringify(json)).toContain('messages.2.role: must be \\"user\\", \\"assistant\\" or \\"system\\"')
  })
})
