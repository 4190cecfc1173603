/**
 * A broken upstream answer never looks whole to a translated client, in any client format, streamed or not. The
 * matrix: every client format (the official SDKs: Anthropic, OpenAI Chat, OpenAI Responses over HTTP and over its
 * WebSocket, Gemini) × every upstream format (a real local server answering with recorded streams) × every way an
 * answer breaks (test-helpers/broken-upstream.ts) × {streamed, whole}. A whole answer, and one the upstream
 * restarted before any content, reads as the recording's text; every broken one raises in the client's SDK (a whole
 * answer with an error status); a spliced answer asked without streaming is the generation the upstream finished.
 * The gateway's record agrees with what the client saw, and a Responses stream never closes an item that is not whole.
 */
import Anthropic from "@anthropic-ai/sdk"
import { ApiError, GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import {
  type BreakCase,
  type BrokenUpstream,
  CASES,
  FREEFORM,
  startBrokenUpstream,
  wholeText,
} from "./test-helpers/broken-upstream.js"
import { CLIENTS, type Client, FORMATS, UPSTREAMS } from "./test-helpers/matrix.js"

let upstream: BrokenUpstream
let gateway: Gateway
const records = new Map<string, (record: GatewayRecord) => void>()
const recorded = new Map<string, GatewayRecord>()
let asked = 0

beforeAll(async () => {
  upstream = await startBrokenUpstream()
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: Object.fromEntries(
        FORMATS.map((f) => [
          f,
          { provider: UPSTREAMS[f].provider, format: f, baseUrl: `${upstream.url}${UPSTREAMS[f].path}`, keyEnv: "K" },
        ]),
      ),
      routes: FORMATS.map((f) => ({ match: `b-${f}-*`, upstream: f, mode: "translate" as const })),
    },
    env: { K: "sk-fake-broken-key-000" },
    onRequest: (record) => {
      recorded.set(record.model, record)
      records.get(record.model)?.(record)
    },
  })
})
afterAll(async () => {
  await gateway?.close(0)
  await upstream?.close()
})

/** A model name no other request uses, naming the upstream format and the case for the broken upstream. */
function modelFor(format: BuiltInWireFormat, kase: string): string {
  return `b-${format}-${kase}_n${++asked}`
}

/** The gateway's record of the request for `model`, once its answer ended. */
function recordOf(model: string): Promise<GatewayRecord> {
  const known = recorded.get(model)
  if (known) return Promise.resolve(known)
  return new Promise((resolve) => records.set(model, resolve))
}

/** What a client's SDK made of an answer: its text (and a Responses stream's closed items), or what it raised. */
type Outcome = { ok: true; text: string; closed?: unknown[] } | { ok: false; error: unknown }

/** The HTTP status an SDK error carries (whole answers), if any. */
function statusOf(error: unknown): number | undefined {
  if (error instanceof ApiError) return error.status
  const status = (error as { status?: unknown })?.status
  return typeof status === "number" ? status : undefined
}

/** What a Responses item says, without its ids and sealed signature (they name the model each case asked for). */
function itemBody(item: unknown): unknown {
  const { id: _id, encrypted_content: _sealed, ...rest } = item as Record<string, unknown>
  return rest
}

const user = "Say hello."

/** One request from `client`'s official SDK, streamed or whole. */
async function ask(client: Client, model: string, streamed: boolean): Promise<Outcome> {
  try {
    if (client === "anthropic") {
      const sdk = new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
      const body = { model, max_tokens: 200, messages: [{ role: "user" as const, content: user }] }
      const message = streamed ? await sdk.messages.stream(body).finalMessage() : await sdk.messages.create(body)
      return { ok: true, text: message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("") }
    }
    if (client === "openai-chat") {
      const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
      const messages = [{ role: "user" as const, content: user }]
      const completion = streamed
        ? await sdk.chat.completions.stream({ model, messages }).finalChatCompletion()
        : await sdk.chat.completions.create({ model, messages })
      return { ok: true, text: completion.choices[0]?.message.content ?? "" }
    }
    if (client === "openai-responses") {
      const sdk = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
      if (!streamed) return { ok: true, text: (await sdk.responses.create({ model, input: user })).output_text }
      const closed: unknown[] = []
      const stream = sdk.responses.stream({ model, input: user })
      try {
        for await (const event of stream)
          if (event.type === "response.output_item.done") closed.push(itemBody(event.item))
        return { ok: true, text: (await stream.finalResponse()).output_text, closed }
      } catch (error) {
        // What was closed before the error still counts: it must be whole.
        return { ok: false, error: Object.assign(error as object, { closed }) }
      }
    }
    const sdk = new GoogleGenAI({ apiKey: "client", httpOptions: { baseUrl: gateway.urls.gemini } })
    const textOf = (parts: { text?: string; thought?: boolean }[] | undefined) =>
      (parts ?? []).map((p) => (p.thought ? "" : (p.text ?? ""))).join("")
    if (!streamed) {
      const response = await sdk.models.generateContent({ model, contents: user })
      return { ok: true, text: textOf(response.candidates?.[0]?.content?.parts) }
    }
    let text = ""
    for await (const chunk of await sdk.models.generateContentStream({ model, contents: user }))
      text += textOf(chunk.candidates?.[0]?.content?.parts)
    return { ok: true, text }
  } catch (error) {
    return { ok: false, error }
  }
}

/** What each case must give a client: the whole text, or an error (a whole answer's with an error status). */
function expectOutcome(kase: BreakCase, streamed: boolean, outcome: Outcome, text: string, record: GatewayRecord) {
  const whole = kase === "whole" || kase === "spliced-before-content" || (kase === "spliced" && !streamed)
  if (whole) {
    expect(outcome).toMatchObject({ ok: true, text })
    expect(record.error).toBeUndefined()
    return
  }
  expect(outcome.ok).toBe(false)
  if (!streamed) expect(statusOf((outcome as { error: unknown }).error)).toBeGreaterThanOrEqual(400)
  // The record says what the client saw.
  expect(record.error).toBeDefined()
}

describe("a broken upstream answer never looks whole, in any client format, streamed or not", () => {
  for (const client of CLIENTS)
    for (const format of FORMATS)
      for (const streamed of [true, false])
        it(`${client} client ← ${format} upstream, ${streamed ? "streamed" : "whole"}`, async () => {
          const text = await wholeText(format)
          const closedWhole: unknown[] = []
          for (const kase of CASES) {
            const model = modelFor(format, kase)
            const outcome = await ask(client, model, streamed)
            const record = await recordOf(model)
            const detail = `${kase}: ${outcome.ok ? "ok" : String((outcome.error as Error)?.message)}`
            expect(() => expectOutcome(kase, streamed, outcome, text, record), detail).not.toThrow()
            // A Responses stream closes an item only when it is whole: every item a broken answer closed is one the
            // whole answer closed too.
            const closed = outcome.ok ? outcome.closed : (outcome.error as { closed?: unknown[] })?.closed
            if (kase === "whole") closedWhole.push(...(closed ?? []))
            else for (const item of closed ?? []) expect(closedWhole, kase).toContainEqual(item)
          }
        })
})

type Event = Record<string, unknown> & { type: string }

describe("the Responses WebSocket: the same answers, one connection per upstream", () => {
  for (const format of FORMATS)
    it(`${format} upstream`, async () => {
      const socket = new ResponsesWS(new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 }))
      socket.on("error", () => {})
      await new Promise<void>((resolve) => socket.socket.on("open", () => resolve()))
      try {
        const text = await wholeText(format)
        const closedWhole: unknown[] = []
        for (const kase of CASES) {
          const events = await new Promise<Event[]>((resolve) => {
            const seen: Event[] = []
            const on = (event: unknown) => {
              const e = event as Event
              seen.push(e)
              if (["response.completed", "response.failed", "response.incomplete"].includes(e.type) || "status" in e) {
                socket.off("event", on)
                resolve(seen)
              }
            }
            socket.on("event", on)
            socket.send({ type: "response.create", model: modelFor(format, kase), input: user, store: false } as never)
          })
          const last = events.at(-1)!
          const closed = events.filter((e) => e.type === "response.output_item.done").map((e) => itemBody(e.item))
          const broken = !(kase === "whole" || kase === "spliced-before-content")
          expect([last.type, events.some((e) => e.type === "error")], kase).toEqual(
            broken
              ? ["response.failed", true]
              : [last.type === "response.incomplete" ? last.type : "response.completed", false],
          )
          if (!broken) {
            const output = (last.response as { output: { type: string; content?: { text: string }[] }[] }).output
            expect(output.flatMap((o) => (o.content ?? []).map((c) => c.text)).join(""), kase).toBe(text)
          }
          if (kase === "whole") closedWhole.push(...closed)
          else for (const item of closed) expect(closedWhole, kase).toContainEqual(item)
        }
      } finally {
        socket.close()
      }
    })
})

describe("recorded calls: a Responses upstream's freeform calls as JSON arguments, Anthropic's recorded splice", () => {
  const INPUTS = {
    custom: { input: "SELECT * FROM users WHERE age > 25" },
    patch: {
      input:
        "*** Begin Patch\n*** Add File: shopping-checklist.md\n+## Shopping Checklist\n+\n+- [ ] Milk\n+- [ ] Bread\n" +
        "+- [ ] Eggs\n+- [ ] Fresh fruit\n+- [ ] Coffee\n*** End Patch",
    },
  }
  /** The first tool call the client's SDK read: its name and its arguments, parsed as the client would. */
  async function callOf(client: Client, model: string, streamed: boolean): Promise<[string, unknown]> {
    if (client === "anthropic") {
      const sdk = new Anthropic({ apiKey: "client", baseURL: gateway.urls.anthropic, maxRetries: 0 })
      const body = { model, max_tokens: 200, messages: [{ role: "user" as const, content: user }] }
      const message = streamed ? await sdk.messages.stream(body).finalMessage() : await sdk.messages.create(body)
      const use = message.content.find((b) => b.type === "tool_use")!
      return [use.name, use.input]
    }
    const openai = new OpenAI({ apiKey: "client", baseURL: gateway.urls.openai, maxRetries: 0 })
    if (client === "openai-chat") {
      const messages = [{ role: "user" as const, content: user }]
      const completion = streamed
        ? await openai.chat.completions.stream({ model, messages }).finalChatCompletion()
        : await openai.chat.completions.create({ model, messages })
      const call = completion.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall
      return [call.function.name, JSON.parse(call.function.arguments)]
    }
    if (client === "openai-responses") {
      const response = streamed
        ? await openai.responses.stream({ model, input: user }).finalResponse()
        : await openai.responses.create({ model, input: user })
      const call = response.output.find((o) => o.type === "function_call") as OpenAI.Responses.ResponseFunctionToolCall
      return [call.name, JSON.parse(call.arguments)]
    }
    const sdk = new GoogleGenAI({ apiKey: "client", httpOptions: { baseUrl: gateway.urls.gemini } })
    const calls = []
    if (streamed)
      for await (const chunk of await sdk.models.generateContentStream({ model, contents: user }))
        calls.push(...(chunk.functionCalls ?? []))
    else calls.push(...((await sdk.models.generateContent({ model, contents: user })).functionCalls ?? []))
    return [calls[0]!.name!, calls[0]!.args]
  }

  for (const client of CLIENTS)
    it(`${client} client (and Anthropic's recorded splice: the finished call whole, an error streamed)`, async () => {
      // The first generation's call was cut in its arguments; the second one the upstream finished.
      const [name, input] = await callOf(client, modelFor("anthropic", "recorded-splice"), false)
      expect([name, input]).toEqual(["test-tool", { value: "Sparkle Day" }])
      await expect(callOf(client, modelFor("anthropic", "recorded-splice"), true)).rejects.toThrow()
      for (const kind of Object.keys(FREEFORM) as (keyof typeof FREEFORM)[])
        for (const streamed of [true, false]) {
          const [name, input] = await callOf(client, modelFor("openai-responses", kind), streamed)
          expect([name, input], `${kind}, ${streamed ? "streamed" : "whole"}`).toEqual([
            kind === "custom" ? "write_sql" : "apply_patch",
            INPUTS[kind],
          ])
        }
    })
})
