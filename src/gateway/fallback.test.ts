/**
 * Fallbacks across a route's upstreams, with fake upstreams on 127.0.0.1 (test-helpers/fault-upstream.ts) and the
 * official SDKs as clients (their own retries off, so every retry seen is the gateway's): each failure kind that
 * moves on and one that does not, `retry-after` short and long, the circuit breaker open, half-open and closed, an
 * answer cut after its first byte (never retried), a fallback in another wire format, an overflow sent only to a
 * larger window, and a client picking its upstream in the model name.
 */
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { GatewayConfig } from "../config/gateway.js"
import { ATTEMPTS_HEADER } from "./fallback.js"
import { logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { MemoryStateStore } from "./state-store.js"
import {
  countedBy,
  type FaultUpstream,
  okText,
  refusingUrl,
  startFaultUpstream,
} from "./test-helpers/fault-upstream.js"
import { traceInputOf } from "./traces.js"

const START = Date.UTC(2026, 11, 4, 9)
let now = START
let main: FaultUpstream
let spare: FaultUpstream
let chat: FaultUpstream
/** The upstream the breaker tests fail, which no other test touches. */
let flaky: FaultUpstream
let refused: string
let gateway: Gateway
const records: GatewayRecord[] = []

function config(): GatewayConfig {
  return {
    port: 0,
    upstreams: {
      main: { provider: "anthropic", baseUrl: main.url, keyEnv: "K" },
      spare: { provider: "anthropic", baseUrl: spare.url, keyEnv: "K" },
      chat: { provider: "openai", format: "openai-chat", baseUrl: chat.url, keyEnv: "K" },
      down: { provider: "anthropic", baseUrl: refused, keyEnv: "K" },
      flaky: { provider: "anthropic", baseUrl: flaky.url, keyEnv: "K" },
    },
    routes: [
      { match: "refused-*", upstream: ["down", "spare"] },
      { match: "big-*", upstream: ["main", "spare", { upstream: "chat", model: "gpt-4.1" }] },
      { match: "cross-*", upstream: ["main", { upstream: "chat", model: "gpt-4.1" }] },
      { match: "to-chat-*", upstream: [{ upstream: "chat", model: "gpt-4.1" }, "main"] },
      { match: "cb-*", upstream: ["flaky", "spare"] },
      { match: "*", upstream: ["main", "spare"] },
    ],
    fallback: {
      headersTimeoutMs: 300,
      retryAfterMaxMs: 50,
      breaker: { failures: 2, windowMs: 60_000, cooldownMs: 10_000, maxCooldownMs: 25_000 },
    },
  }
}

beforeAll(async () => {
  main = await startFaultUpstream("main", "anthropic")
  spare = await startFaultUpstream("spare", "anthropic")
  chat = await startFaultUpstream("chat", "openai-chat")
  flaky = await startFaultUpstream("flaky", "anthropic")
  refused = await refusingUrl()
  gateway = await startGateway({
    config: config(),
    env: { K: "sk-fake-fallback-key-000" },
    clock: () => now,
    onRequest: (record) => records.push(record),
  })
})
afterAll(async () => {
  await gateway?.close(0)
  await Promise.all([main?.close(), spare?.close(), chat?.close(), flaky?.close()])
})
beforeEach(async () => {
  for (const upstream of [main, spare, chat, flaky]) upstream.script()
  // Each test starts with every circuit closed: a success on each upstream after its rest.
  now += 3_600_000
})

const anthropic = () => new Anthropic({ baseURL: gateway.urls.anthropic, apiKey: "client-key", maxRetries: 0 })

/** Asks through the Anthropic SDK; the answer's text, the attempts header, and the record. */
async function ask(model: string, stream = false) {
  const before = records.length
  const client = anthropic()
  const params = { model, max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] }
  let text: string
  let header: string | null
  if (stream) {
    const { data, response } = await client.messages.stream(params).withResponse()
    header = response.headers.get(ATTEMPTS_HEADER)
    text = (await data.finalMessage()).content.map((b) => (b.type === "text" ? b.text : "")).join("")
  } else {
    const { data, response } = await client.messages.create(params).withResponse()
    header = response.headers.get(ATTEMPTS_HEADER)
    text = data.content.map((b) => (b.type === "text" ? b.text : "")).join("")
  }
  await until(() => records.length > before)
  return { text, header, record: records.at(-1)! }
}

/** A streamed Anthropic request with fetch: the answer as it comes, its bytes unread. */
function postStream(base: string, model: string): Promise<Response> {
  const body = JSON.stringify({ model, max_tokens: 8, stream: true, messages: [{ role: "user", content: "hi" }] })
  const headers = { "content-type": "application/json", "anthropic-version": "2023-06-01", "x-api-key": "k" }
  return fetch(`${base}/v1/messages`, { method: "POST", headers, body })
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe("falling back to the next upstream", () => {
  it("moves on from a refused connection, naming the chain in the header, record, log line, trace and usage", async () => {
    const fallbacks = gateway.usage().fallbacks
    const { text, header, record } = await ask("refused-a")
    expect(logLine(record)).toMatch(/ 200 attempts: down\/refused-a network, spare\/refused-a 200$/)
    expect(traceInputOf(record)?.attempts).toEqual(record.attempts)
    expect(gateway.usage().fallbacks).toBe(fallbacks + 1)
    expect(text).toBe(okText("spare"))
    expect(header).toBe("down/refused-a network, spare/refused-a 200")
    expect(record.upstream).toMatchObject({ name: "spare", model: "refused-a" })
    expect(record.attempts).toEqual([
      { upstream: "down", model: "refused-a", error: "network" },
      { upstream: "spare", model: "refused-a", status: 200 },
    ])
  })

  it("moves on from an upstream that sends no headers in time", async () => {
    main.script("hang")
    const { text, record } = await ask("claude-hang", true)
    expect(text).toBe(okText("spare"))
    expect(record.attempts?.map((a) => [a.upstream, a.error ?? a.status])).toEqual([
      ["main", "network"],
      ["spare", 200],
    ])
  })

  it.each([429, 500, 503, 529])("moves on from HTTP %i, streamed and whole", async (status) => {
    for (const stream of [false, true]) {
      // Past any rest an earlier failure of main began: main is asked (closed, or half-open for one probe).
      now += 30_000
      main.script({ status })
      const { text, record } = await ask(`claude-${status}`, stream)
      expect(text).toBe(okText("spare"))
      expect(record.attempts?.[0]).toMatchObject({ upstream: "main", status })
      expect(record.status).toBe(200)
    }
  })

  it("tells the client an error another upstream would share (400), and asks no other", async () => {
    main.script({ status: 400, message: "bad field" })
    const asked = spare.bodies.length
    const error = await anthropic()
      .messages.create({ model: "claude-400", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toContain("bad field")
    expect(spare.bodies.length).toBe(asked)
    await until(() => records.at(-1)?.model === "claude-400")
    expect(records.at(-1)!.attempts).toEqual([
      { upstream: "main", model: "claude-400", status: 400, error: "invalid-request" },
    ])
  })

  it("answers with the last upstream's own error when every one failed", async () => {
    main.script({ status: 500 })
    spare.script({ status: 529, message: "all busy" })
    const error = await anthropic()
      .messages.create({ model: "claude-all", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)
    expect((error as InstanceType<typeof Anthropic.APIError>).status).toBe(529)
    expect((error as Error).message).toContain("all busy")
    expect((error as InstanceType<typeof Anthropic.APIError>).headers?.get(ATTEMPTS_HEADER)).toBe(
      "main/claude-all server, spare/claude-all server",
    )
  })

  it("moves on from an overload reported inside a 200 stream before any content, which the client never sees", async () => {
    main.script("overloaded-stream")
    const { text, header, record } = await ask("claude-overloaded", true)
    expect(text).toBe(okText("spare"))
    expect(header).toBe("main/claude-overloaded server, spare/claude-overloaded 200")
    expect(record.attempts).toEqual([
      { upstream: "main", model: "claude-overloaded", error: "server" },
      { upstream: "spare", model: "claude-overloaded", status: 200 },
    ])
    // An OpenAI Chat client falling back from its own format: the same, for a Chat stream's error. Past the rest
    // main's failure began (it may have been a half-open probe), so main is asked again.
    now += 30_000
    chat.script("overloaded-stream")
    const openai = new OpenAI({ baseURL: gateway.urls.openai, apiKey: "client-key", maxRetries: 0 })
    let chatText = ""
    const stream = await openai.chat.completions.create({
      model: "to-chat-overloaded",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    })
    for await (const chunk of stream) chatText += chunk.choices[0]?.delta.content ?? ""
    expect(chatText).toBe(okText("main"))
    await until(() => records.at(-1)?.model === "to-chat-overloaded")
    expect(records.at(-1)!.attempts?.map((a) => [a.upstream, a.error ?? a.status])).toEqual([
      ["chat", "server"],
      ["main", 200],
    ])
  })

  it("moves on from an overload inside a translated upstream's 200 stream before any content", async () => {
    chat.script("overloaded-stream")
    const { text, header, record } = await ask("to-chat-overloaded-anthropic", true)
    expect(text).toBe(okText("main"))
    expect(header).toBe("chat/gpt-4.1 server, main/to-chat-overloaded-anthropic 200")
    expect(record.attempts).toEqual([
      { upstream: "chat", model: "gpt-4.1", error: "server" },
      { upstream: "main", model: "to-chat-overloaded-anthropic", status: 200 },
    ])
    // A translated answer that shows content is read from its held start on, streamed and whole.
    for (const stream of [true, false]) {
      const { text: translated, record: held } = await ask(`to-chat-held-${stream}`, stream)
      expect(translated).toBe(okText("chat"))
      expect(held.attempts).toEqual([{ upstream: "chat", model: "gpt-4.1", status: 200 }])
      expect(held.usage).toMatchObject({ input: 10, output: 3 })
    }
  })

  it("relays a held stream that shows content byte for byte, as the upstream sent it", async () => {
    const direct = await (await postStream(main.url, "claude-held")).text()
    const via = await postStream(gateway.url, "claude-held")
    expect(via.headers.get(ATTEMPTS_HEADER)).toBe("main/claude-held 200")
    expect(await via.text()).toBe(direct)
    expect(direct).toContain(okText("main"))
    // The record's usage and stop: the side decoder went on from the hold's, which read the held start.
    await until(() => records.at(-1)?.model === "claude-held")
    expect(records.at(-1)!.usage).toEqual({ input: 10, output: 3, cacheRead: 0, cacheWrite: 0 })
    expect(records.at(-1)!.stop).toBe("end")
  })

  it("lets a held start go to the client once it showed nothing for the fallback's headers timeout", async () => {
    // The upstream shows its content only once the client has the answer's headers: a hold with no end of its
    // own would wait for that content forever.
    let release: () => void = () => {}
    main.script({ contentAfter: new Promise<void>((resolve) => (release = resolve)) })
    const asked = spare.bodies.length
    const answer = await postStream(gateway.url, "claude-slow-content")
    expect(answer.status).toBe(200)
    release()
    const text = await answer.text()
    expect(text.startsWith(": waiting\n\n")).toBe(true)
    expect(text).toContain(okText("main"))
    expect(spare.bodies.length).toBe(asked)
    await until(() => records.at(-1)?.model === "claude-slow-content")
    expect(records.at(-1)!.attempts).toEqual([{ upstream: "main", model: "claude-slow-content", status: 200 }])
  })

  it("relays the last upstream's stream as it came, an overload inside it included", async () => {
    main.script("overloaded-stream")
    spare.script("overloaded-stream")
    const error = await ask("claude-both-overloaded", true).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.APIError)
    expect((error as Error).message).toMatch(/Overloaded/)
    await until(() => records.at(-1)?.model === "claude-both-overloaded")
    expect(records.at(-1)!.attempts).toEqual([
      { upstream: "main", model: "claude-both-overloaded", error: "server" },
      { upstream: "spare", model: "claude-both-overloaded", status: 200 },
    ])
  })

  it("never retries once the answer's first byte reached the client: the cut answer stays broken", async () => {
    main.script("cut")
    const asked = spare.bodies.length
    const error = await ask("claude-cut", true).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(spare.bodies.length).toBe(asked)
    await until(() => records.at(-1)?.model === "claude-cut")
    expect(records.at(-1)!.attempts).toEqual([{ upstream: "main", model: "claude-cut", status: 200 }])
    expect(records.at(-1)!.error?.kind).toBe("network")
  })
})

describe("retry-after", () => {
  it("waits out a short retry-after and asks the same upstream once more", async () => {
    main.script({ status: 429, headers: { "retry-after": "0" } })
    const { text, record } = await ask("claude-wait")
    expect(text).toBe(okText("main"))
    expect(record.attempts).toEqual([
      { upstream: "main", model: "claude-wait", status: 429, error: "rate-limit" },
      { upstream: "main", model: "claude-wait", status: 200 },
    ])
  })

  it("rests an upstream whose retry-after is longer than the gateway waits, and passes it over until then", async () => {
    main.script({ status: 429, headers: { "retry-after": "120" } })
    expect((await ask("claude-rest")).text).toBe(okText("spare"))
    expect(gateway.status().upstreams.find((u) => u.name === "main")?.circuit?.state).toBe("open")
    const asked = main.bodies.length
    const again = await ask("claude-rest")
    expect(again.text).toBe(okText("spare"))
    expect(main.bodies.length).toBe(asked)
    expect(again.record.attempts?.[0]).toEqual({ upstream: "main", model: "claude-rest", error: "circuit-open" })
    now += 121_000
    expect((await ask("claude-rest")).text).toBe(okText("main"))
  })
})

describe("the circuit breaker", () => {
  const circuit = () => gateway.status().upstreams.find((u) => u.name === "flaky")?.circuit

  it("opens after the failures in a row, probes half-open after the rest, doubles the rest when the probe fails, closes on success", async () => {
    flaky.script({ status: 500 }, { status: 500 })
    await ask("cb-a")
    expect(circuit()).toBeUndefined()
    await ask("cb-a")
    expect(circuit()?.state).toBe("open")
    const asked = flaky.bodies.length
    const skipped = await ask("cb-a")
    expect(skipped.record.attempts?.[0]).toEqual({ upstream: "flaky", model: "cb-a", error: "circuit-open" })
    expect(skipped.text).toBe(okText("spare"))
    expect(flaky.bodies.length).toBe(asked)
    // The rest (10 s) is over: one probe, which fails, opens it again for twice as long.
    now += 10_001
    flaky.script({ status: 503 })
    const probe = await ask("cb-a")
    expect(probe.record.attempts?.[0]).toMatchObject({ upstream: "flaky", status: 503 })
    expect(circuit()?.state).toBe("open")
    now += 10_001
    expect((await ask("cb-a")).record.attempts?.[0]?.error).toBe("circuit-open")
    now += 10_001
    const healed = await ask("cb-a")
    expect(healed.text).toBe(okText("flaky"))
    expect(circuit()?.state).toBe("closed")
    // Closed again: a single failure does not open it.
    flaky.script({ status: 500 })
    await ask("cb-a")
    expect(circuit()?.state).toBe("closed")
  })

  it("keeps its state in the state store: an instance sharing it passes over an upstream another one rested", async () => {
    const store = new MemoryStateStore()
    const options = { config: config(), env: { K: "sk-fake-fallback-key-000" }, clock: () => now, stateStore: store }
    const one = await startGateway(options)
    const two = await startGateway(options)
    try {
      const create = (g: Gateway) =>
        new Anthropic({ baseURL: g.urls.anthropic, apiKey: "client-key", maxRetries: 0 }).messages
          .create({ model: "cb-shared", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
          .withResponse()
      flaky.script({ status: 500 }, { status: 500 })
      await create(one)
      await create(one)
      const asked = flaky.bodies.length
      const { response } = await create(two)
      expect(response.headers.get(ATTEMPTS_HEADER)).toBe("flaky/cb-shared circuit-open, spare/cb-shared 200")
      expect(flaky.bodies.length).toBe(asked)
    } finally {
      await one.close(0)
      await two.close(0)
    }
  })

  it("answers 503 with a retry-after when every upstream of the route is resting", async () => {
    main.script({ status: 500 }, { status: 500 })
    spare.script({ status: 500 }, { status: 500 })
    for (let i = 0; i < 2; i++)
      await anthropic()
        .messages.create({ model: "claude-rest-all", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
        .catch(() => undefined)
    const error = (await anthropic()
      .messages.create({ model: "claude-rest-all", max_tokens: 8, messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e)) as InstanceType<typeof Anthropic.APIError>
    expect(error.status).toBe(503)
    expect(error.headers?.get("retry-after")).toBe("10")
    expect(error.headers?.get(ATTEMPTS_HEADER)).toBe(
      "main/claude-rest-all circuit-open, spare/claude-rest-all circuit-open",
    )
  })
})

describe("translation per attempt", () => {
  it("translates for a fallback that speaks another wire format (Anthropic client, OpenAI Chat upstream)", async () => {
    main.script({ status: 529 })
    const { text, record } = await ask("cross-a", true)
    expect(text).toBe(okText("chat"))
    expect(record.mode).toBe("translate")
    expect(record.upstream).toMatchObject({ name: "chat", format: "openai-chat", model: "gpt-4.1" })
    expect(chat.bodies.at(-1)).toMatchObject({ model: "gpt-4.1", messages: [{ role: "user", content: "hi" }] })
  })

  it("an OpenAI client falls back from its own format to an Anthropic upstream", async () => {
    chat.script({ status: 500 })
    const client = new OpenAI({ baseURL: gateway.urls.openai, apiKey: "client-key", maxRetries: 0 })
    const answer = await client.chat.completions.create({
      model: "to-chat-x",
      messages: [{ role: "user", content: "hi" }],
    })
    expect(answer.choices[0]?.message.content).toBe(okText("main"))
    await until(() => records.at(-1)?.model === "to-chat-x")
    expect(records.at(-1)!.attempts?.map((a) => a.upstream)).toEqual(["chat", "main"])
  })

  it("a Gemini client is translated for each attempt", async () => {
    main.script({ status: 503 })
    const genai = new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: gateway.urls.gemini } })
    const answer = await genai.models.generateContent({ model: "claude-gemini", contents: "hi" })
    expect(answer.text).toBe(okText("spare"))
  })
})

describe("a context overflow", () => {
  it("goes on only to an upstream whose model window is larger", async () => {
    main.script({ status: 400, message: "prompt is too long: 210000 tokens > 200000 maximum" })
    const asked = spare.bodies.length
    const { text, record } = await ask("big-claude-sonnet-4-5")
    expect(text).toBe(okText("chat"))
    expect(spare.bodies.length).toBe(asked)
    expect(record.attempts).toEqual([
      { upstream: "main", model: "big-claude-sonnet-4-5", status: 400, error: "context-overflow" },
      { upstream: "spare", model: "big-claude-sonnet-4-5", error: "window-too-small" },
      { upstream: "chat", model: "gpt-4.1", status: 200 },
    ])
  })
})

describe("token counts", () => {
  const messages = [{ role: "user" as const, content: "count these words" }]

  it("a forwarded count moves on from a refused connection and from a 529, naming the chain", async () => {
    const refusedCount = await anthropic().messages.countTokens({ model: "refused-c", messages }).withResponse()
    expect(refusedCount.data.input_tokens).toBe(countedBy("spare"))
    expect(refusedCount.response.headers.get(ATTEMPTS_HEADER)).toBe("down/refused-c network, spare/refused-c 200")
    main.script({ status: 529 })
    const before = records.length
    const overloaded = await anthropic().messages.countTokens({ model: "claude-c", messages }).withResponse()
    expect(overloaded.data.input_tokens).toBe(countedBy("spare"))
    expect(overloaded.response.headers.get(ATTEMPTS_HEADER)).toBe("main/claude-c server, spare/claude-c 200")
    await until(() => records.length > before)
    expect(records.at(-1)).toMatchObject({ upstream: { name: "spare" }, status: 200 })
    expect(records.at(-1)!.error).toBeUndefined()
    expect(records.at(-1)!.attempts).toEqual([
      { upstream: "main", model: "claude-c", status: 529, error: "server" },
      { upstream: "spare", model: "claude-c", status: 200 },
    ])
  })

  it("a count refused with a 400 is the client's, and no other upstream is asked", async () => {
    main.script({ status: 400, message: "bad count" })
    const asked = spare.bodies.length
    const error = await anthropic()
      .messages.countTokens({ model: "claude-c400", messages })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.BadRequestError)
    expect((error as Error).message).toContain("bad count")
    expect(spare.bodies.length).toBe(asked)
  })

  it("a count falls back to an upstream in another wire format, counted there as it would be sent", async () => {
    main.script({ status: 503 })
    const { data, response } = await anthropic().messages.countTokens({ model: "cross-c", messages }).withResponse()
    // OpenAI Chat has no counting endpoint: promptline counts the request as encoded for it.
    expect(data.input_tokens).toBeGreaterThan(0)
    expect(data.input_tokens).not.toBe(countedBy("main"))
    expect(response.headers.get(ATTEMPTS_HEADER)).toBe("main/cross-c server, chat/gpt-4.1 200")
  })

  it("a translated count (a Gemini client) moves on from an error status and from an upstream that sends nothing in time", async () => {
    const genai = new GoogleGenAI({ apiKey: "client-key", httpOptions: { baseUrl: gateway.urls.gemini } })
    main.script({ status: 500 })
    const failed = await genai.models.countTokens({ model: "claude-gemini", contents: "count these words" })
    expect(failed.totalTokens).toBe(countedBy("spare"))
    main.script("hang")
    const before = records.length
    const hung = await genai.models.countTokens({ model: "claude-gemini", contents: "count these words" })
    expect(hung.totalTokens).toBe(countedBy("spare"))
    await until(() => records.length > before)
    expect(records.at(-1)!.attempts).toEqual([
      { upstream: "main", model: "claude-gemini", error: "network" },
      { upstream: "spare", model: "claude-gemini", status: 200 },
    ])
    // The count was translated for each upstream: Anthropic's counting request, with the client's words.
    expect(JSON.stringify(spare.bodies.at(-1))).toContain("count these words")
  })
})

describe("the Responses WebSocket", () => {
  /** Sends one `response.create` on a new connection; the events it got until the response ended or failed. */
  async function respond(model: string): Promise<{ type: string }[]> {
    const socket = new ResponsesWS(new OpenAI({ apiKey: "client-key", baseURL: gateway.urls.openai, maxRetries: 0 }))
    socket.on("error", () => {})
    try {
      await new Promise<void>((resolve) => socket.socket.on("open", () => resolve()))
      const events: { type: string }[] = []
      await new Promise<void>((resolve) => {
        socket.on("event", (event) => {
          events.push(event as { type: string })
          if (["response.completed", "response.failed", "error"].includes((event as { type: string }).type)) resolve()
        })
        socket.send({ type: "response.create", model, input: "hi", store: false } as never)
      })
      return events
    } finally {
      socket.close()
    }
  }

  it("a translated response falls back as an HTTP request does, the chain in its record", async () => {
    main.script({ status: 500, message: "main is down" })
    const before = records.length
    const events = await respond("claude-ws")
    expect(events.map((e) => e.type)).toContain("response.completed")
    expect(JSON.stringify(events)).toContain(okText("spare"))
    expect(JSON.stringify(events)).not.toContain("main is down")
    await until(() => records.length > before)
    const record = records.at(-1)!
    expect(record.transport).toBe("websocket")
    expect(record.upstream?.name).toBe("spare")
    expect(record.attempts).toEqual([
      { upstream: "main", model: "claude-ws", status: 500, error: "server" },
      { upstream: "spare", model: "claude-ws", status: 200 },
    ])
  })

  it("tells the client the last upstream's error when every one failed, and asks none after a 400", async () => {
    main.script({ status: 503, message: "main is down" })
    spare.script({ status: 503, message: "spare is down too" })
    const failed = await respond("claude-ws")
    expect(failed.map((e) => e.type)).not.toContain("response.completed")
    expect(JSON.stringify(failed)).toContain("spare is down too")
    // Past the rest those failures began: main is asked again.
    now += 3_600_000
    main.script({ status: 400, message: "bad field" })
    const asked = spare.bodies.length
    const refused = await respond("claude-ws")
    expect(JSON.stringify(refused)).toContain("bad field")
    expect(spare.bodies.length).toBe(asked)
  })
})

describe("picking the upstream in the model name", () => {
  it("sends `upstream,model` to that configured upstream, with no fallback", async () => {
    const { text, record } = await ask("spare,claude-picked")
    expect(text).toBe(okText("spare"))
    expect(spare.bodies.at(-1)?.model).toBe("claude-picked")
    expect(record.upstream).toMatchObject({ name: "spare", model: "claude-picked" })
    expect(record.attempts).toBeUndefined()
  })

  it("refuses an upstream the config does not name", async () => {
    const error = await ask("elsewhere,claude-x").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Anthropic.NotFoundError)
    expect((error as Error).message).toMatch(
      /upstream \\?"elsewhere\\?".*the upstreams are: main, spare, chat, down, flaky/,
    )
  })
})
