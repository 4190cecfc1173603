import OpenAI from "openai"
import type { ChatCompletionChunk } from "openai/resources/chat/completions"
import { afterEach, describe, expect, it } from "vitest"
import { openAIChatFormat } from "./openai-chat.js"
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
  { type: "function" as const, function: { name: "read_file", parameters: sampleParameters } },
  { type: "function" as const, function: { name: "execute_command", parameters: sampleParameters } },
]

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function client(...turns: Parameters<typeof scriptOf>) {
  server = await startReplayServer({ script: scriptOf(...turns) })
  return new OpenAI({ apiKey: "test-key", baseURL: server.urls.openai, maxRetries: 0 })
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const chunks: ChatCompletionChunk[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const kind = (e: Record<string, unknown>) => {
  const choice = (e.choices as { delta: Record<string, unknown>; finish_reason: string | null }[])[0]
  if (choice === undefined) return "usage"
  if (choice.finish_reason) return "finish"
  const d = choice.delta
  if ("role" in d) return "start"
  if (d.tool_calls) return "tool_calls"
  if (typeof d.reasoning_content === "string" && d.reasoning_content !== "") return "reasoning"
  return "content"
}

describe("OpenAI Chat Completions replay", () => {
  it("streams a turn the official SDK assembles exactly: text, reasoning, tool calls with arguments, usage", async () => {
    const openai = await client(richTurn, finalTurn)
    const completion = await openai.chat.completions
      .stream({
        model: "gpt-4.1",
        stream_options: { include_usage: true },
        tools,
        messages: [{ role: "user", content: "Fix the bug." }],
      })
      .finalChatCompletion()
    const choice = completion.choices[0]!
    expect(choice.message.content).toBe(richTurn.text)
    expect(choice.message.tool_calls).toEqual([
      {
        id: "call_replay_0_0",
        type: "function",
        function: { name: "read_file", arguments: JSON.stringify(richTurn.toolCalls[0]!.input) },
      },
      {
        id: "call_replay_0_1",
        type: "function",
        function: { name: "execute_command", arguments: JSON.stringify(richTurn.toolCalls[1]!.input) },
      },
    ])
    expect(choice.finish_reason).toBe("tool_calls")
    expect(completion.usage).toMatchObject({
      prompt_tokens: 1320,
      completion_tokens: 45,
      total_tokens: 1365,
      prompt_tokens_details: { cached_tokens: 1000 },
      completion_tokens_details: { reasoning_tokens: 10 },
    })
  })

  it("sends the usage chunk only when stream_options.include_usage asks for it, then [DONE]", async () => {
    const openai = await client(finalTurn, finalTurn)
    const without = await collect(
      await openai.chat.completions.create({
        model: "gpt-4.1",
        stream: true,
        messages: [{ role: "user", content: "x" }],
      }),
    )
    expect(without.some((c) => c.usage)).toBe(false)
    expect(without.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe(finalTurn.text)
    const withUsage = await collect(
      await openai.chat.completions.create({
        model: "gpt-4.1",
        stream: true,
        stream_options: { include_usage: true },
        messages: [{ role: "user", content: "x" }],
      }),
    )
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 300, completion_tokens: 8 } })
    const raw = server!.requests.map((r) => r.status)
    expect(raw).toEqual([200, 200])
  })

  it("speaks DeepSeek's flavour for deepseek models: usage on the finishing chunk, cache hit and miss counts", async () => {
    const openai = await client({ ...richTurn, text: "" })
    const chunks = await collect(
      await openai.chat.completions.create({
        model: "deepseek-reasoner",
        stream: true,
        tools,
        messages: [{ role: "user", content: "x" }],
      }),
    )
    const reasoning = chunks.map(
      (c) => (c.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? "",
    )
    expect(reasoning.join("")).toBe(richTurn.thinking)
    const last = chunks.at(-1)!
    expect(last.choices[0]?.finish_reason).toBe("tool_calls")
    expect(last.usage).toMatchObject({ prompt_cache_hit_tokens: 1000, prompt_cache_miss_tokens: 320 })
    const recorded = recordedStream("deepseek", "deepseek-tool-call.chunks.txt")
    expect(kindSequence(chunks as unknown[], kind)).toEqual(kindSequence(recorded, kind))
  })

  it("answers a request made without streaming with the whole completion", async () => {
    const openai = await client(richTurn)
    const completion = await openai.chat.completions.create({
      model: "gpt-4.1",
      tools,
      messages: [{ role: "user", content: "x" }],
    })
    expect(completion.choices[0]!.message.tool_calls?.map((c) => c.type === "function" && c.function.name)).toEqual([
      "read_file",
      "execute_command",
    ])
    expect(completion.usage?.completion_tokens).toBe(45)
  })

  it("writes the tool calls as XML text when the request declares no tools, and reads XML results back", async () => {
    const openai = await client(richTurn, {
      text: "ok",
      expect: { dialect: "xml", toolResults: [{ tool: "read_file", matches: "const a" }] },
    })
    const completion = await openai.chat.completions
      .stream({ model: "gpt-4.1", messages: [{ role: "user", content: "x" }] })
      .finalChatCompletion()
    const text = completion.choices[0]!.message.content ?? ""
    expect(text).toContain("<read_file>\n<path>src/a.ts</path>\n<start_line>1</start_line>")
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([])
    expect(completion.choices[0]!.finish_reason).toBe("stop")
    await openai.chat.completions.create({
      model: "gpt-4.1",
      messages: [
        { role: "user", content: "x" },
        { role: "assistant", content: text },
        { role: "user", content: '<tool_result tool="read_file">\nconst a = 1\n</tool_result>' },
      ],
    })
    expect(server!.divergences).toEqual([])
  })

  it("emits the chunk sequence and fields of recorded Chat Completions streams", () => {
    const body = { model: "gpt-4.1", stream: true, stream_options: { include_usage: true }, messages: [], tools }
    const view = openAIChatFormat.view(body, new Map(), {})
    const turn = resolveTurn(scriptOf(richTurn).turns[0]!, 0, {
      dialect: "native",
      callIdPrefix: "call_",
      requestChars: 1,
    })
    const textTurn = resolveTurn(scriptOf(finalTurn).turns[0]!, 0, {
      dialect: "native",
      callIdPrefix: "call_",
      requestChars: 1,
    })
    const text = openAIChatFormat.events({ turn: textTurn, view, body, created: 0, chunkSize: 8 })
    expect(kindSequence(text, kind)).toEqual(
      kindSequence(recordedStream("openai-chat", "openai-text.chunks.txt"), kind),
    )
    const recorded = [
      ...recordedStream("openai-chat", "openai-text.chunks.txt"),
      ...recordedStream("openai-chat", "xai-tool-call.chunks.txt"),
      ...recordedStream("deepseek", "deepseek-tool-call.chunks.txt"),
    ]
    const known = new Set(recorded.flatMap((e) => keyPaths(e)))
    const ours = [...text, ...openAIChatFormat.events({ turn, view, body, created: 0, chunkSize: 8 })]
    expect(ours.flatMap((e) => keyPaths(e)).filter((p) => !known.has(p))).toEqual([])
  })
})

describe("OpenAI Chat replay: the current API's request shapes", () => {
  it("reads developer messages mid-conversation, custom tools, legacy functions and function results", async () => {
    server = await startReplayServer({
      script: scriptOf({
        text: "Done.",
        expect: {
          system: "Mode: act",
          userText: "^Continue\\.$",
          tools: ["apply_patch", "lookup"],
          toolResults: [{ tool: "lookup", matches: "42" }],
        },
      }),
    })
    const res = await fetch(`${server.urls.openai}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-key" },
      body: JSON.stringify({
        model: "gpt-5.4",
        messages: [
          { role: "developer", content: "Be brief." },
          { role: "user", content: "Look it up." },
          { role: "assistant", content: null, function_call: { name: "lookup", arguments: "{}" } },
          { role: "function", name: "lookup", content: "42" },
          { role: "user", content: "Continue." },
          { role: "developer", content: [{ type: "text", text: "Mode: act." }] },
        ],
        tools: [{ type: "custom", custom: { name: "apply_patch", format: { type: "text" } } }],
        functions: [{ name: "lookup", parameters: { type: "object" } }],
        prompt_cache_key: "session-1",
        verbosity: "low",
        a_field_from_the_future: 1,
      }),
    })
    expect(res.status).toBe(200)
    expect(server.requests[0]).toMatchObject({ outcome: "answered", unknownFields: ["a_field_from_the_future"] })
  })
})
