import OpenAI from "openai"
import type { ResponseStreamEvent } from "openai/resources/responses/responses"
import { afterEach, describe, expect, it } from "vitest"
import { openAIResponsesFormat } from "./openai-responses.js"
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
  { type: "function" as const, name: "read_file", parameters: sampleParameters, strict: false },
  { type: "function" as const, name: "execute_command", parameters: sampleParameters, strict: false },
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

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

/** Splits a recorded file holding several responses into one event list per response. */
function responses(file: string): Record<string, unknown>[][] {
  const out: Record<string, unknown>[][] = []
  for (const e of recordedStream("openai-responses", file)) {
    if (e.type === "response.created") out.push([])
    out.at(-1)?.push(e)
  }
  return out
}

describe("OpenAI Responses replay", () => {
  it("streams a turn the official SDK assembles exactly: reasoning summary, text, function calls, usage", async () => {
    const openai = await client(richTurn, finalTurn)
    const response = await openai.responses
      .stream({ model: "gpt-5", reasoning: { effort: "low", summary: "auto" }, tools, input: "Fix the bug." })
      .finalResponse()
    expect(response.status).toBe("completed")
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call", "function_call"])
    expect(response.output[0]).toMatchObject({ summary: [{ type: "summary_text", text: richTurn.thinking }] })
    expect(response.output_text).toBe(richTurn.text)
    expect(response.output.slice(2)).toMatchObject([
      { call_id: "call_replay_0_0", name: "read_file", arguments: JSON.stringify(richTurn.toolCalls[0]!.input) },
      { call_id: "call_replay_0_1", name: "execute_command", arguments: JSON.stringify(richTurn.toolCalls[1]!.input) },
    ])
    expect(response.usage).toMatchObject({
      input_tokens: 1320,
      input_tokens_details: { cached_tokens: 1000 },
      output_tokens: 45,
      output_tokens_details: { reasoning_tokens: 10 },
      total_tokens: 1365,
    })
  })

  it("numbers events in order and returns encrypted reasoning when include asks for it", async () => {
    const openai = await client(richTurn)
    const events = await collect(
      await openai.responses.create({
        model: "gpt-5",
        stream: true,
        store: false,
        include: ["reasoning.encrypted_content"],
        tools,
        input: "x",
      }),
    )
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i))
    const done = events.find((e) => e.type === "response.output_item.done" && e.item.type === "reasoning")
    expect(done).toMatchObject({ item: { type: "reasoning", summary: [], encrypted_content: expect.any(String) } })
    const args = events.filter((e) => e.type === "response.function_call_arguments.delta")
    expect(args.length).toBeGreaterThan(2)
  })

  it("ends a turn cut by the output limit with response.incomplete", async () => {
    const openai = await client({ text: "A long answer that stops", stop: "length" })
    const events = await collect(await openai.responses.create({ model: "gpt-5", stream: true, input: "x" }))
    expect(events.at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
    })
  })

  it("ends a refused turn as OpenAI ends a filtered answer: response.incomplete with content_filter", async () => {
    const openai = await client({ text: "I can't help with that.", stop: "refusal" })
    const events = await collect(await openai.responses.create({ model: "gpt-5", stream: true, input: "x" }))
    expect(events.at(-1)).toMatchObject({
      type: "response.incomplete",
      response: { status: "incomplete", incomplete_details: { reason: "content_filter" } },
    })
    expect(
      events
        .filter((e) => e.type === "response.output_text.delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("I can't help with that.")
  })

  it("answers without streaming, continues from a stored response, and refuses an unknown one", async () => {
    const openai = await client(
      { toolCalls: [{ name: "read_file", input: { path: "a" } }] },
      { text: "The file says hi.", expect: { toolResults: [{ tool: "read_file", matches: "^hi$" }] } },
    )
    const first = await openai.responses.create({ model: "gpt-5", tools, input: "read a" })
    expect(first.output).toMatchObject([{ type: "function_call", name: "read_file", arguments: '{"path":"a"}' }])
    const call = first.output[0] as { call_id: string }
    await expect(
      openai.responses.create({ model: "gpt-5", tools, previous_response_id: "resp_nope", input: [] }),
    ).rejects.toMatchObject({ status: 400, code: "previous_response_not_found" })
    const second = await openai.responses.create({
      model: "gpt-5",
      tools,
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: call.call_id, output: "hi" }],
    })
    expect(second.output_text).toBe("The file says hi.")
    expect(server!.divergences).toEqual([])
  })

  it("writes the tool calls as XML text when the request declares no tools", async () => {
    const openai = await client(richTurn)
    const response = await openai.responses.stream({ model: "gpt-5", input: "x" }).finalResponse()
    expect(response.output.map((o) => o.type)).toEqual(["reasoning", "message"])
    expect(response.output_text).toContain("<execute_command>\n<command>npm test -- --grep 'a b'</command>")
  })

  it("emits the event sequence and fields of recorded Responses streams", () => {
    const recorded = responses("openai-reasoning-encrypted-content.1.chunks.txt")
    const render = (turn: Parameters<typeof scriptOf>[0]) => {
      const body = { model: "gpt-5", stream: true, reasoning: { summary: "detailed" }, tools, input: "x" }
      const view = openAIResponsesFormat.view(body, new Map(), {})
      const resolved = resolveTurn(scriptOf(turn).turns[0]!, 0, {
        dialect: "native",
        callIdPrefix: "call_",
        requestChars: 1,
      })
      return openAIResponsesFormat.events({ turn: resolved, view, body, created: 0, chunkSize: 8 })
    }
    const type = (e: Record<string, unknown>) => String(e.type)
    const reasoned = render({ thinking: "Compute 12 + 7.", toolCalls: [{ name: "read_file", input: { path: "a" } }] })
    expect(kindSequence(reasoned, type)).toEqual(kindSequence(recorded[0]!, type))
    const text = render({ text: "The final result is 570." })
    expect(kindSequence(text, type)).toEqual(kindSequence(recorded[3]!, type))
    const known = new Set(
      ["openai-reasoning-encrypted-content.1.chunks.txt", "openai-phase.1.chunks.txt"]
        .flatMap((f) => recordedStream("openai-responses", f))
        .flatMap((e) => keyPaths(e)),
    )
    const invented = [...reasoned, ...text]
      .flatMap((e) => keyPaths(e))
      .filter((p) => !p.startsWith("response.tools") && !known.has(p))
    expect(invented).toEqual([])
  })
})

describe("OpenAI Responses replay: the current API's request shapes", () => {
  it("reads developer items, custom tool calls and their outputs, namespaced and hosted tools", async () => {
    server = await startReplayServer({
      script: scriptOf({
        text: "Done.",
        expect: {
          system: "Mode: act",
          tools: ["apply_patch", "read_file"],
          toolResults: [{ tool: "apply_patch", matches: "Success" }],
        },
      }),
    })
    const res = await fetch(`${server.urls.openai}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-key" },
      body: JSON.stringify({
        model: "gpt-5.4",
        instructions: "Be brief.",
        input: [
          { type: "message", role: "user", content: [{ type: "input_text", text: "Fix it." }] },
          { type: "custom_tool_call", call_id: "call_1", name: "apply_patch", input: "*** Begin Patch" },
          { type: "custom_tool_call_output", call_id: "call_1", output: "Success. Updated 1 file." },
          { type: "message", role: "developer", content: [{ type: "input_text", text: "Mode: act." }] },
          { type: "a_future_item", payload: {} },
        ],
        tools: [
          { type: "custom", name: "apply_patch", format: { type: "text" } },
          {
            type: "namespace",
            name: "fs",
            description: "Files",
            tools: [{ type: "function", name: "read_file", parameters: {} }],
          },
          { type: "web_search" },
        ],
        context_management: [{ type: "compaction", compact_threshold: 100000 }],
        prompt_cache_key: "session-1",
        store: false,
      }),
    })
    expect(res.status).toBe(200)
    expect(server.requests[0]).toMatchObject({ outcome: "answered", problems: [] })
    expect(server.requests[0]!.unknownFields).toBeUndefined()
  })
})
