/**
 * Translate mode, thinking: each official SDK client asks for thinking through the gateway, the upstream (each
 * of the five formats) thinks and calls a tool, the client reads the thinking in its own SDK's shape and sends
 * its history back with it. The upstream must get a request its provider accepts, with its own signature back.
 */
import type Anthropic from "@anthropic-ai/sdk"
import type OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WireFormat } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { replaySignature } from "../replay/resolve.js"
import {
  CLIENTS,
  type Client,
  FORMATS,
  type Matrix,
  requestsDuring,
  sdkClients,
  spokenFormat,
  startMatrix,
  UPSTREAMS,
} from "./test-helpers/matrix.js"

const THOUGHT = "The file a.ts should be read before answering."
const FINAL = "The file is empty."
const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] }

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix(
    CLIENTS.flatMap(() =>
      FORMATS.flatMap(() => [
        { thinking: THOUGHT, toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
        { text: FINAL },
      ]),
    ).concat(
      // The conversations that change upstream between their two turns.
      [0, 1].flatMap(() => [
        { thinking: THOUGHT, toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
        { text: FINAL },
      ]),
    ),
  )
})
afterAll(async () => {
  await matrix?.close()
})

/** What the client read of the first answer's thinking, the final text, and the dropped-fields header. */
interface Seen {
  thinking: string
  signature: string | undefined
  text: string
  dropped: string | null
}

/** A thinking, tool-calling round trip with one client's SDK. */
async function roundTrip(client: Client, route: string | [string, string]): Promise<Seen> {
  const sdk = sdkClients(matrix.gateway)
  const [model, next] = typeof route === "string" ? [route, route] : route
  if (client === "anthropic") {
    const tools = [{ name: "read_file", input_schema: schema as Anthropic.Tool.InputSchema }]
    const thinking = { type: "enabled" as const, budget_tokens: 1024 }
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "read a.ts" }]
    const first = await sdk.anthropic.messages
      .stream({ model, max_tokens: 2000, thinking, tools, messages })
      .finalMessage()
    const thought = first.content.find((b) => b.type === "thinking")
    const use = first.content.find((b) => b.type === "tool_use")!
    messages.push({ role: "assistant", content: first.content })
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "" }] })
    const { data, response } = await sdk.anthropic.messages
      .create({ model: next, max_tokens: 2000, thinking, tools, messages })
      .withResponse()
    const text = data.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
    return {
      thinking: thought?.thinking ?? "",
      signature: thought?.signature,
      text,
      dropped: response.headers.get("x-promptline-dropped"),
    }
  }
  if (client === "openai-chat") {
    const tools = [{ type: "function" as const, function: { name: "read_file", parameters: schema } }]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "read a.ts" }]
    const ask = { model, tools, reasoning_effort: "low" as const }
    const stream = sdk.openai.chat.completions.stream({ ...ask, messages })
    // `reasoning_content` is no field of the official API: read from the chunks, as compatible clients do.
    let reasoning = ""
    for await (const chunk of stream)
      reasoning += (chunk.choices[0]?.delta as { reasoning_content?: string } | undefined)?.reasoning_content ?? ""
    const message = (await stream.finalChatCompletion()).choices[0]!.message
    const call = message.tool_calls![0]!
    const assistant = { role: "assistant" as const, content: message.content, tool_calls: message.tool_calls! }
    messages.push({ ...assistant, reasoning_content: reasoning } as OpenAI.ChatCompletionAssistantMessageParam)
    messages.push({ role: "tool", tool_call_id: call.id, content: "" })
    const { data, response } = await sdk.openai.chat.completions
      .create({ ...ask, model: next, messages })
      .withResponse()
    return {
      thinking: reasoning,
      signature: undefined,
      text: data.choices[0]!.message.content ?? "",
      dropped: response.headers.get("x-promptline-dropped"),
    }
  }
  if (client === "openai-responses") {
    const tools = [{ type: "function" as const, name: "read_file", parameters: schema, strict: false }]
    const ask = {
      model,
      tools,
      reasoning: { effort: "low" as const, summary: "auto" as const },
      include: ["reasoning.encrypted_content" as const],
      store: false,
    }
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: "read a.ts" }]
    const first = await sdk.openai.responses.stream({ ...ask, input }).finalResponse()
    const reasoning = first.output.find((o) => o.type === "reasoning")
    const call = first.output.find((o) => o.type === "function_call")!
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
      type: "function_call_output",
      call_id: call.call_id,
      output: "",
    })
    const { data, response } = await sdk.openai.responses.create({ ...ask, model: next, input }).withResponse()
    return {
      thinking: reasoning?.summary.map((s) => s.text).join("") ?? "",
      signature: reasoning?.encrypted_content ?? undefined,
      text: data.output_text,
      dropped: response.headers.get("x-promptline-dropped"),
    }
  }
  const config = {
    tools: [{ functionDeclarations: [{ name: "read_file", parametersJsonSchema: schema }] }],
    thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 },
  }
  const contents: { role: string; parts: Record<string, unknown>[] }[] = [
    { role: "user", parts: [{ text: "read a.ts" }] },
  ]
  const parts: Record<string, unknown>[] = []
  for await (const chunk of await sdk.gemini.models.generateContentStream({ model, contents, config }))
    parts.push(...((chunk.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]))
  const fc = parts.find((p) => p.functionCall)!.functionCall as { id?: string; name: string }
  contents.push({ role: "model", parts })
  contents.push({
    role: "user",
    parts: [{ functionResponse: { ...(fc.id ? { id: fc.id } : {}), name: fc.name, response: { output: "" } } }],
  })
  const second = await sdk.gemini.models.generateContent({ model: next, contents, config })
  const signed = parts.find((p) => typeof p.thoughtSignature === "string")
  return {
    thinking: parts.flatMap((p) => (p.thought === true && typeof p.text === "string" ? [p.text] : [])).join(""),
    signature: signed?.thoughtSignature as string | undefined,
    text: second.text ?? "",
    dropped: second.sdkHttpResponse?.headers?.["x-promptline-dropped"] ?? null,
  }
}

/** The thinking blocks of the second request's last assistant message, read back in the upstream's terms. */
function sentThinking(upstream: WireFormat, body: unknown) {
  const route = upstream === "gemini" ? { model: UPSTREAMS.gemini.model } : undefined
  const decoded = formatModule(upstream).decodeRequest(body, route)
  const assistant = decoded.messages.filter((m) => m.role === "assistant").at(-1)!
  return assistant.content.flatMap((b) => (b.type === "thinking" ? [{ text: b.text, signature: b.signature }] : []))
}

/** The thought signature on the second Gemini request's function call, if any. */
function sentCallSignature(body: unknown): string | undefined {
  const contents = (body as { contents: { role: string; parts: Record<string, unknown>[] }[] }).contents
  const model = contents.filter((c) => c.role === "model").at(-1)!
  return model.parts.find((p) => p.functionCall)?.thoughtSignature as string | undefined
}

/** The field each client asks for thinking with. */
const THINKING_FIELD: Record<Client, string> = {
  anthropic: "thinking",
  "openai-chat": "reasoning_effort",
  "openai-responses": "reasoning.effort",
  gemini: "generationConfig.thinkingConfig",
}

describe("translate mode: thinking, every client SDK against every upstream format", () => {
  for (const client of CLIENTS) {
    for (const upstream of FORMATS) {
      it(`${client} client → ${upstream} upstream: the thinking is read and goes back`, async () => {
        const { result, seen } = await requestsDuring(matrix.replay, () => roundTrip(client, `to-${upstream}`))
        expect(seen.map((r) => [r.format, r.outcome, r.status, r.problems])).toEqual([
          [spokenFormat(upstream), "answered", 200, []],
          [spokenFormat(upstream), "answered", 200, []],
        ])
        expect(result.text).toBe(FINAL)
        // The thinking asked for is named where it could not go: to a model that does not think (gpt-4.1), or to
        // Anthropic in a turn that continues a tool call the Chat client sent back without its thinking.
        const notCarried = upstream === "openai-chat" || (client === "openai-chat" && upstream === "anthropic")
        expect(result.dropped).toBe(notCarried ? THINKING_FIELD[client] : null)
        // The client read the thinking in its own shape (Chat: `reasoning_content`, as compatible servers send it).
        expect(result.thinking).toBe(THOUGHT)
        const signature = replaySignature(seen[0]!.turn!)
        const back = sentThinking(upstream, seen[1]!.body)
        if (upstream === "anthropic" || upstream === "openai-responses") {
          // A signing upstream gets its own signature back from every client that can carry one; Chat cannot,
          // and the upstream then gets the turn without thinking.
          const expected = client === "openai-chat" ? [] : [{ text: expect.any(String), signature }]
          expect(back).toEqual(expected)
          if (upstream === "anthropic" && client !== "openai-chat") expect(back[0]!.text).toBe(THOUGHT)
        } else if (upstream === "gemini") {
          // Gemini's signature rides on the call; clients whose call has no place for it lose it (Gemini 2.5
          // takes the call without it, Gemini 3 gets Google's placeholder).
          const carries = client === "gemini"
          expect(sentCallSignature(seen[1]!.body)).toBe(carries ? signature : undefined)
        } else if (upstream === "deepseek") {
          // DeepSeek takes its reasoning back as `reasoning_content`, no signature.
          expect(back).toEqual([{ text: THOUGHT, signature: undefined }])
        }
      })
    }
  }
})

describe("translate mode: a signature goes back only to the model that made it", () => {
  it("an Anthropic client's thinking signed by OpenAI reaches Anthropic as text, unsigned, and the request is taken", async () => {
    const { seen } = await requestsDuring(matrix.replay, () =>
      roundTrip("anthropic", ["to-openai-responses", "to-anthropic"]),
    )
    expect(seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([
      ["openai-responses", "answered", []],
      ["anthropic", "answered", []],
    ])
    const second = seen[1]!.body as { messages: { role: string; content: { type: string; text?: string }[] }[] }
    expect(JSON.stringify(second)).not.toContain(replaySignature(seen[0]!.turn!))
    const assistant = second.messages.find((m) => m.role === "assistant")!
    expect(assistant.content.map((b) => b.type)).toEqual(["text", "tool_use"])
    expect(assistant.content[0]!.text).toBe(THOUGHT)
  })

  it("a Gemini client's thinking signed by Anthropic does not reach Gemini as a thought signature", async () => {
    const { seen } = await requestsDuring(matrix.replay, () => roundTrip("gemini", ["to-anthropic", "to-gemini"]))
    expect(seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([
      ["anthropic", "answered", []],
      ["gemini", "answered", []],
    ])
    expect(JSON.stringify(seen[1]!.body)).not.toContain(replaySignature(seen[0]!.turn!))
  })
})
