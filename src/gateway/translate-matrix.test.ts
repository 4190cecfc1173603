/**
 * Translate mode across the matrix: each official SDK as the client (Anthropic, OpenAI Chat, OpenAI Responses,
 * Gemini) → the gateway → the replay server speaking each of the five wire formats as the upstream. A two-turn
 * tool-call round trip: the model calls `read_file`, the client sends the result back (its call id as the
 * client's API gave it), the model answers. The upstream must see a well-formed request of its own format with
 * the result paired to the call, and the client must read both answers with its own SDK.
 */
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import { classifyHttpError } from "../providers/errors.js"
import { formatModule } from "../providers/formats.js"
import type { ReplayServer } from "../replay/server.js"
import type { Gateway } from "./server.js"
import { CLIENTS, type Client, FORMATS, type Matrix, startMatrix, UPSTREAMS } from "./test-helpers/matrix.js"

const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
const FINAL = "The file is empty."

let replay: ReplayServer
let gateway: Gateway
let matrix: Matrix
beforeAll(async () => {
  const turns = CLIENTS.flatMap(() =>
    FORMATS.flatMap(() => [{ toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] }, { text: FINAL }]),
  )
  // One more turn for the failure tests: its faults answer their requests, the turn itself is never asked for.
  turns.push({ text: FINAL })
  matrix = await startMatrix(turns)
  ;({ replay, gateway } = matrix)
})
afterAll(async () => {
  await matrix?.close()
})

/** Runs the round trip with one client; returns the tool call the client saw and the final text. */
async function roundTrip(
  client: Client,
  model: string,
): Promise<{ call: { name: string; input: unknown }; text: string }> {
  if (client === "anthropic") {
    const sdk = new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const tools = [
      { name: "read_file", description: "Reads a file.", input_schema: schema as Anthropic.Tool.InputSchema },
    ]
    const messages: Anthropic.MessageParam[] = [{ role: "user", content: "read a.ts" }]
    const first = await sdk.messages.stream({ model, max_tokens: 200, tools, messages }).finalMessage()
    const use = first.content.find((b) => b.type === "tool_use")!
    messages.push({ role: "assistant", content: first.content })
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "" }] })
    const second = await sdk.messages.create({ model, max_tokens: 200, tools, messages })
    const text = second.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
    return { call: { name: use.name, input: use.input }, text }
  }
  if (client === "openai-chat") {
    const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
    const tools = [
      { type: "function" as const, function: { name: "read_file", description: "Reads a file.", parameters: schema } },
    ]
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "user", content: "read a.ts" }]
    const first = await sdk.chat.completions.stream({ model, tools, messages }).finalChatCompletion()
    const message = first.choices[0]!.message
    const call = message.tool_calls![0]! as OpenAI.ChatCompletionMessageFunctionToolCall
    messages.push({ role: "assistant", content: message.content, tool_calls: message.tool_calls! })
    messages.push({ role: "tool", tool_call_id: call.id, content: "" })
    const second = await sdk.chat.completions.create({ model, tools, messages })
    return {
      call: { name: call.function.name, input: JSON.parse(call.function.arguments) },
      text: second.choices[0]!.message.content ?? "",
    }
  }
  if (client === "openai-responses") {
    const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
    const tools = [
      { type: "function" as const, name: "read_file", description: "Reads a file.", parameters: schema, strict: false },
    ]
    const input: OpenAI.Responses.ResponseInput = [{ role: "user", content: "read a.ts" }]
    const first = await sdk.responses.stream({ model, tools, input }).finalResponse()
    const call = first.output.find((o) => o.type === "function_call")!
    input.push(call, { type: "function_call_output", call_id: call.call_id, output: "" })
    const second = await sdk.responses.create({ model, tools, input })
    return { call: { name: call.name, input: JSON.parse(call.arguments) }, text: second.output_text }
  }
  const sdk = new GoogleGenAI({ apiKey: "client", httpOptions: { baseUrl: gateway.urls.gemini } })
  const config = {
    tools: [
      { functionDeclarations: [{ name: "read_file", description: "Reads a file.", parametersJsonSchema: schema }] },
    ],
  }
  const contents: { role: string; parts: Record<string, unknown>[] }[] = [
    { role: "user", parts: [{ text: "read a.ts" }] },
  ]
  const parts: Record<string, unknown>[] = []
  for await (const chunk of await sdk.models.generateContentStream({ model, contents, config }))
    parts.push(...((chunk.candidates?.[0]?.content?.parts ?? []) as Record<string, unknown>[]))
  const fc = parts.find((p) => p.functionCall)!.functionCall as { id?: string; name: string; args: unknown }
  contents.push({ role: "model", parts })
  contents.push({
    role: "user",
    parts: [{ functionResponse: { ...(fc.id ? { id: fc.id } : {}), name: fc.name, response: { output: "" } } }],
  })
  const second = await sdk.models.generateContent({ model, contents, config })
  return { call: { name: fc.name, input: fc.args }, text: second.text ?? "" }
}

describe("translate mode: every client SDK against every upstream format", () => {
  for (const client of CLIENTS) {
    for (const upstream of FORMATS) {
      it(`${client} client → ${upstream} upstream: a tool-call round trip`, async () => {
        const before = replay.requests.length
        const { call, text } = await roundTrip(client, `to-${upstream}`)
        expect(call).toEqual({ name: "read_file", input: { path: "a.ts" } })
        expect(text).toBe(FINAL)
        const seen = replay.requests.slice(before)
        expect(seen.map((r) => [r.outcome, r.status])).toEqual([
          ["answered", 200],
          ["answered", 200],
        ])
        // The upstream got the model the route names, in its own format.
        const spoken = upstream === "deepseek" ? "openai-chat" : upstream
        expect(seen.map((r) => r.format)).toEqual([spoken, spoken])
        // Read back in the upstream's own terms, the second request pairs the result with the call it answers.
        const route = upstream === "gemini" ? { model: UPSTREAMS.gemini.model } : undefined
        const second = formatModule(upstream).decodeRequest(seen[1]!.body, route)
        const use = second.messages.flatMap((m) => m.content).find((b) => b.type === "tool_use")
        const result = second.messages.at(-1)!.content.find((b) => b.type === "tool_result")
        expect(use).toMatchObject({ name: "read_file", input: { path: "a.ts" } })
        expect(result && "toolUseId" in result ? result.toolUseId : undefined).toBe(use && "id" in use ? use.id : "")
        expect(second.model).toBe(UPSTREAMS[upstream].model)
      })
    }
  }
})

// Answers the upstream breaks (cut, spliced, an error event), for every client and upstream, streamed and whole:
// broken-answers.test.ts.
describe("translate mode: upstream failures reach each client in its own shape", () => {
  /** Each client against an upstream of another format: its own SDK error for a 429 and an overflow. */
  const PAIRS: [Client, BuiltInWireFormat][] = [
    ["anthropic", "openai-chat"],
    ["openai-chat", "anthropic"],
    ["openai-responses", "gemini"],
    ["gemini", "openai-responses"],
  ]
  for (const [client, upstream] of PAIRS) {
    it(`${client} client, ${upstream} upstream: a 429 keeps its wait, an overflow is the client's overflow`, async () => {
      // The script's next turn is preceded by the faults; each fault answers one request.
      const next = answeredTurns()
      replay.injectFault(next, { kind: "rate-limit", retryAfter: 7 })
      replay.injectFault(next, { kind: "context-overflow" })
      const limited = await failure(client, `to-${upstream}`)
      expect([limited.status, limited.retryAfter]).toEqual([429, "7"])
      const overflow = await failure(client, `to-${upstream}`)
      expect(overflow.status).toBe(400)
      expect(classifyHttpError({ status: 400, body: JSON.stringify(overflow.body) }).kind).toBe("context-overflow")
    })
  }
})

/** The script turn the next request will get (each answered request advanced it by one). */
function answeredTurns(): number {
  return replay.requests.filter((r) => r.outcome === "answered").length
}

/** A raw request in the client's own format; the status, retry-after and body of its answer. */
async function failure(
  client: Client,
  model: string,
): Promise<{ status: number; retryAfter: string | null; body: unknown }> {
  const paths: Record<Client, string> = {
    anthropic: `${gateway.urls.anthropic}/v1/messages`,
    "openai-chat": `${gateway.urls.openai}/chat/completions`,
    "openai-responses": `${gateway.urls.openai}/responses`,
    gemini: `${gateway.urls.gemini}/v1beta/models/${model}:streamGenerateContent?alt=sse`,
  }
  const bodies: Record<Client, unknown> = {
    anthropic: { model, max_tokens: 50, stream: true, messages: [{ role: "user", content: "hi" }] },
    "openai-chat": { model, stream: true, messages: [{ role: "user", content: "hi" }] },
    "openai-responses": { model, stream: true, input: "hi" },
    gemini: { contents: [{ role: "user", parts: [{ text: "hi" }] }] },
  }
  const answer = await fetch(paths[client], {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer client", "x-api-key": "client" },
    body: JSON.stringify(bodies[client]),
  })
  const text = await answer.text()
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: kept as text
  }
  return { status: answer.status, retryAfter: answer.headers.get("retry-after"), body }
}

describe("translate mode: token counting", () => {
  it("counts with the upstream's counting endpoint when its format has one, else with promptline's counter", async () => {
    const body = { model: "to-gemini", messages: [{ role: "user", content: "count these words please" }] }
    const ask = (model: string) =>
      fetch(`${gateway.urls.anthropic}/v1/messages/count_tokens`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "client", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ ...body, model }),
      })
    const before = replay.requests.length
    const viaGemini = await ask("to-gemini")
    expect(viaGemini.status).toBe(200)
    const counted = (await viaGemini.json()) as { input_tokens: number }
    expect(counted.input_tokens).toBeGreaterThan(0)
    // The upstream's own counting endpoint answered, asked in its own format.
    expect(replay.requests.slice(before).map((r) => [r.format, r.path])).toEqual([
      ["gemini", `/v1beta/models/${UPSTREAMS.gemini.model}:countTokens`],
    ])
    const viaChat = await ask("to-openai-chat")
    expect(viaChat.status).toBe(200)
    const local = (await viaChat.json()) as { input_tokens: number }
    // No request upstream: OpenAI Chat has no counting endpoint, promptline counted (o200k, exact).
    expect(replay.requests.length).toBe(before + 1)
    expect(local.input_tokens).toBeGreaterThan(4)
    expect(local.input_tokens).toBeLessThan(40)
  })
})
