import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterEach, describe, expect, it, vi } from "vitest"
import type { GatewayConfig } from "../config/gateway.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, richTurn, sampleParameters, scriptOf } from "../replay/test-helpers/fixtures.js"
import { logJson, logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

const KEY = "sk-fake-upstream-key-0123456789"
const CLIENT_KEY = "sk-fake-client-key-9876543210"

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
let raw: Server | undefined
afterEach(async () => {
  await gateway?.close(0)
  await replay?.close()
  raw?.closeAllConnections()
  await new Promise<void>((resolve) => (raw ? raw.close(() => resolve()) : resolve()))
  gateway = replay = raw = undefined
})

/** A config whose every model goes to the replay server in the client's own format. */
function sameFormatConfig(url: string, extra: Partial<GatewayConfig> = {}): GatewayConfig {
  return {
    upstreams: {
      anthropic: { provider: "anthropic", baseUrl: url, keyEnv: "UPSTREAM_KEY" },
      openai: { provider: "openai", format: "openai-chat", baseUrl: `${url}/v1`, keyEnv: "UPSTREAM_KEY" },
      responses: { provider: "openai", format: "openai-responses", baseUrl: `${url}/v1`, keyEnv: "UPSTREAM_KEY" },
      gemini: { provider: "gemini", baseUrl: url, keyEnv: "UPSTREAM_KEY" },
    },
    routes: [
      { match: "claude-*", upstream: "anthropic" },
      { match: "gpt-chat-*", upstream: "openai" },
      { match: "gpt-resp-*", upstream: "responses" },
      { match: "gemini-*", upstream: "gemini" },
    ],
    ...extra,
  }
}

async function start(turns: Parameters<typeof scriptOf>, extra: Partial<GatewayConfig> = {}) {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  const records: GatewayRecord[] = []
  gateway = await startGateway({
    config: sameFormatConfig(replay.url, { port: 0, ...extra }),
    env: { UPSTREAM_KEY: KEY },
    onRequest: (r) => records.push(r),
    answerHeaders: (early) => ({ "x-promptline-test": `${early.seq} ${early.conversationKey === "" ? "-" : "keyed"}` }),
  })
  return { replay, gateway, records }
}

const tools = ["read_file", "execute_command"].map((name) => ({
  name,
  description: name,
  input_schema: sampleParameters,
}))

describe("same-format mode, official SDKs as clients, the replay server upstream", () => {
  it("Anthropic: a streamed tool-call round trip, with the upstream's key and usage in the record", async () => {
    const { gateway, replay, records } = await start([richTurn, finalTurn])
    const client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const first = await client.messages
      .stream({ model: "claude-sonnet-4-5", max_tokens: 100, tools, messages: [{ role: "user", content: "go" }] })
      .finalMessage()
    const calls = first.content.filter((b) => b.type === "tool_use")
    expect(calls.map((c) => c.name)).toEqual(["read_file", "execute_command"])
    const second = await client.messages.create({
      model: "claude-sonnet-4-5",
      max_tokens: 100,
      tools,
      messages: [
        { role: "user", content: "go" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: calls.map((c) => ({ type: "tool_result" as const, tool_use_id: c.id, content: "ok" })),
        },
      ],
    })
    expect(second.content).toEqual([{ type: "text", text: finalTurn.text }])
    expect(replay.requests.map((r) => r.headers["x-api-key"])).toEqual(["[redacted]", "[redacted]"])
    expect(records.map((r) => [r.clientFormat, r.mode, r.upstream?.name, r.status, r.stop])).toEqual([
      ["anthropic", "same-format", "anthropic", 200, "tool_use"],
      ["anthropic", "same-format", "anthropic", 200, "end"],
    ])
    expect(records[0]!.usage).toEqual({ input: 120, output: 45, cacheRead: 1000, cacheWrite: 200 })
    expect(logLine(records[0]!)).toMatch(
      /anthropic → anthropic \(anthropic\) claude-sonnet-4-5 in 1,320 out 45 cached 76% \$0\.0021 \d+ ms 200/,
    )
  })

  it("forwards the answer byte for byte (streamed and whole)", async () => {
    const { gateway, replay } = await start([finalTurn, finalTurn])
    // The same script served directly: the same turn, so the same bytes.
    const direct = await startReplayServer({ script: scriptOf(finalTurn, finalTurn) })
    const body = { model: "claude-x", max_tokens: 16, stream: true, messages: [{ role: "user", content: "hi" }] }
    const post = (base: string, b: unknown) =>
      fetch(`${base}/v1/messages?beta=true`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": KEY, "anthropic-version": "2023-06-01" },
        body: JSON.stringify(b),
      })
    try {
      const through = await post(gateway.url, body)
      const plain = await post(direct.url, body)
      expect(through.headers.get("content-type")).toBe(plain.headers.get("content-type"))
      expect(through.headers.get("x-promptline-test")).toMatch(/^1 /)
      expect(Buffer.from(await through.arrayBuffer())).toEqual(Buffer.from(await plain.arrayBuffer()))
      const whole = { ...body, stream: false }
      expect(await (await post(gateway.url, whole)).text()).toBe(await (await post(direct.url, whole)).text())
      expect(replay.requests[0]!.query).toBe("?beta=true")
      expect(replay.requests[0]!.body).toEqual(direct.requests[0]!.body)
    } finally {
      await direct.close()
    }
  })

  it("OpenAI Chat, OpenAI Responses and Gemini (SSE and JSON array) clients", async () => {
    const { gateway, records } = await start([finalTurn, finalTurn, finalTurn, finalTurn])
    const openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: gateway.urls.openai, maxRetries: 0 })
    const chat = await openai.chat.completions.create({
      model: "gpt-chat-1",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
    })
    let text = ""
    for await (const chunk of chat) text += chunk.choices[0]?.delta.content ?? ""
    expect(text).toBe(finalTurn.text)
    const response = await openai.responses.create({ model: "gpt-resp-1", input: "hi" })
    expect(response.output_text).toBe(finalTurn.text)
    const gemini = new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: gateway.urls.gemini } })
    let streamed = ""
    for await (const chunk of await gemini.models.generateContentStream({ model: "gemini-2.5-pro", contents: "hi" }))
      streamed += chunk.text ?? ""
    expect(streamed).toBe(finalTurn.text)
    const array = await fetch(`${gateway.url}/v1beta/models/gemini-2.5-pro:streamGenerateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
    })
    expect(Array.isArray(await array.json())).toBe(true)
    expect(records.map((r) => [r.clientFormat, r.status, r.usage?.input])).toEqual([
      ["openai-chat", 200, 300],
      ["openai-responses", 200, 300],
      ["gemini", 200, 300],
      ["gemini", 200, 300],
    ])
  })

  it("passes a 429 with retry-after and an overflow through in the client's shape; a cut stream stays cut", async () => {
    const { gateway, replay, records } = await start([finalTurn])
    replay.injectFault(0, { kind: "rate-limit", retryAfter: 7 })
    replay.injectFault(0, { kind: "context-overflow" })
    replay.injectFault(0, { kind: "disconnect" })
    const client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const ask = () =>
      client.messages.create({
        model: "claude-x",
        max_tokens: 16,
        stream: false,
        messages: [{ role: "user", content: "hi" }],
      })
    const limited = await ask().catch((e: unknown) => e)
    expect(limited).toBeInstanceOf(Anthropic.RateLimitError)
    expect((limited as InstanceType<typeof Anthropic.RateLimitError>).headers.get("retry-after")).toBe("7")
    const overflow = await ask().catch((e: unknown) => e)
    expect(overflow).toBeInstanceOf(Anthropic.BadRequestError)
    expect(String((overflow as Error).message)).toMatch(/prompt is too long/)
    const stream = client.messages.stream({
      model: "claude-x",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    })
    await expect(stream.finalMessage()).rejects.toThrow()
    expect(records.map((r) => r.error?.kind)).toEqual(["rate-limit", "context-overflow", "network"])
    const ok = await ask()
    expect(ok.content).toEqual([{ type: "text", text: finalTurn.text }])
  })
})

describe("token counting and model lists", () => {
  it("forwards count_tokens and countTokens unchanged; lists the routed model names in the client's shape", async () => {
    const { gateway, replay, records } = await start([finalTurn])
    const anthropic = new Anthropic({ apiKey: CLIENT_KEY, baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const counted = await anthropic.messages.countTokens({
      model: "claude-x",
      messages: [{ role: "user", content: "hi" }],
    })
    expect(counted.input_tokens).toBeGreaterThan(0)
    // A count's answer is no generation: its record reads no usage, stop or broken stream from it.
    await vi.waitFor(() => expect(records).toHaveLength(1))
    expect(records[0]).toMatchObject({ status: 200, mode: "same-format" })
    expect(records[0]!.error).toBeUndefined()
    expect(records[0]!.usage).toBeUndefined()
    const gemini = new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: gateway.urls.gemini } })
    const total = await gemini.models.countTokens({ model: "gemini-2.5-pro", contents: "hi" })
    expect(total.totalTokens).toBeGreaterThan(0)
    expect(replay.requests.map((r) => r.path)).toEqual([
      "/v1/messages/count_tokens",
      "/v1beta/models/gemini-2.5-pro:countTokens",
    ])
    const routed = (await fetch(`${gateway.url}/v1/models`).then((r) => r.json())) as { data: { id: string }[] }
    expect(routed).toMatchObject({ object: "list", data: [] })
    const named = await startGateway({
      config: {
        port: 0,
        upstreams: { a: { provider: "anthropic", baseUrl: replay.url } },
        routes: [
          { match: "claude-local", upstream: "a" },
          { match: "*", upstream: "a" },
        ],
      },
      env: {},
    })
    try {
      const models = await new Anthropic({ apiKey: "k", baseURL: named.urls.anthropic }).models.list()
      expect(models.data.map((m) => m.id)).toEqual(["claude-local"])
    } finally {
      await named.close(0)
    }
  })
})

describe("bad input and bad upstreams: a clear error in the client's shape, and the server keeps serving", () => {
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway!.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    })

  it("refuses malformed JSON, a wrong content type, a body over the limit, an unknown model and an unknown path", async () => {
    await start([finalTurn], { bodyLimit: 2000 })
    const bad = await post("/v1/messages", "{nope")
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringMatching(/not valid JSON/) },
    })
    const form = await post("/v1/chat/completions", "a=b", { "content-type": "application/x-www-form-urlencoded" })
    expect(form.status).toBe(415)
    expect(await form.json()).toMatchObject({ error: { type: "invalid_request_error" } })
    const big = await post("/v1/messages", JSON.stringify({ model: "claude-x", pad: "x".repeat(5000) }))
    expect(big.status).toBe(413)
    expect(await big.json()).toMatchObject({
      type: "error",
      error: { message: expect.stringMatching(/limit of 2000 bytes/) },
    })
    // The same without a declared length (chunked): counted as it arrives.
    const { request } = await import("node:http")
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${gateway!.url}/v1/messages`,
        { method: "POST", headers: { "content-type": "application/json" } },
        (res) => {
          let text = ""
          res.on("data", (c: Buffer) => {
            text += String(c)
          })
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
        },
      )
      req.on("error", reject)
      for (let i = 0; i < 10; i++) req.write("x".repeat(500))
      req.end()
    })
    expect(chunked.status).toBe(413)
    expect(chunked.body).toMatch(/limit of 2000 bytes/)
    const unknown = await post("/v1beta/models/llama-3:generateContent", JSON.stringify({ contents: [] }))
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toMatchObject({
      error: { status: "NOT_FOUND", message: expect.stringMatching(/no route for model "llama-3"/) },
    })
    expect((await fetch(`${gateway!.url}/v2/other`)).status).toBe(404)
    const ok = await post(
      "/v1/messages",
      JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    )
    expect(ok.status).toBe(200)
  })

  it("answers an upstream that hangs, resets or answers HTML with an error in the client's shape", async () => {
    let mode: "hang" | "reset" | "html" = "hang"
    raw = createServer((req, res) => {
      if (mode === "reset") req.socket.destroy()
      else if (mode === "html") {
        res.writeHead(200, { "content-type": "text/html" })
        res.end("<html><body><h1>Sign in to the proxy</h1></body></html>")
      }
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`
    gateway = await startGateway({
      config: {
        port: 0,
        idleTimeoutMs: 300,
        upstreams: { bad: { provider: "openai", format: "openai-chat", baseUrl: url } },
        routes: [{ match: "*", upstream: "bad" }],
      },
      env: {},
    })
    const openai = new OpenAI({ apiKey: CLIENT_KEY, baseURL: gateway.urls.openai, maxRetries: 0 })
    const ask = () =>
      openai.chat.completions.create({ model: "m", messages: [{ role: "user", content: "hi" }] }).then(
        () => ({ status: 200, message: "" }),
        (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
      )
    const hung = await ask()
    expect([hung.status, hung.message]).toEqual([502, expect.stringMatching(/sent nothing for 300 ms/)])
    mode = "reset"
    const reset = await ask()
    expect([reset.status, reset.message]).toEqual([502, expect.stringMatching(/failed/)])
    mode = "html"
    const html = await ask()
    expect([html.status, html.message]).toEqual([
      502,
      expect.stringMatching(/answered HTTP 200 with text\/html, not the API's JSON: Sign in to the proxy/),
    ])
  })
})

describe("safe by default", () => {
  it("refuses another host without a token, and checks the token when one is set", async () => {
    await expect(startGateway({ host: "0.0.0.0", port: 0, env: {} })).rejects.toThrow(/set gateway\.tokenEnv/)
    const { replay: r } = await start([finalTurn], { tokenEnv: "GW_TOKEN" }).catch(() => ({ replay: undefined }))
    expect(r).toBeUndefined()
    replay = await startReplayServer({ script: scriptOf(finalTurn) })
    const lines: string[] = []
    gateway = await startGateway({
      config: sameFormatConfig(replay.url, { port: 0, tokenEnv: "GW_TOKEN" }),
      env: { UPSTREAM_KEY: KEY, GW_TOKEN: "gw-fake-token-abcdefgh" },
      onRequest: (record) => lines.push(logLine(record), logJson(record), JSON.stringify(record)),
    })
    const ask = (key: string) =>
      new Anthropic({ apiKey: key, baseURL: gateway!.urls.anthropic, maxRetries: 0 }).messages
        .create({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
        .catch((e: unknown) => e as InstanceType<typeof Anthropic.APIError>)
    expect(await ask(CLIENT_KEY)).toBeInstanceOf(Anthropic.AuthenticationError)
    const ok = await ask("gw-fake-token-abcdefgh")
    expect(ok).toMatchObject({ content: [{ type: "text", text: finalTurn.text }] })
    const everything = [...lines, JSON.stringify(replay.requests)].join("\n")
    for (const secret of [KEY, CLIENT_KEY, "gw-fake-token-abcdefgh"]) expect(everything).not.toContain(secret)
    expect(everything).toContain("[redacted]")
  })

  it("serves 200 concurrent streams", async () => {
    const turns = Array.from({ length: 200 }, () => finalTurn)
    const { gateway } = await start(turns)
    const client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: gateway.urls.anthropic, maxRetries: 0 })
    const all = await Promise.all(
      turns.map(() =>
        client.messages
          .stream({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "hi" }] })
          .finalMessage(),
      ),
    )
    expect(all.every((m) => m.content[0]?.type === "text")).toBe(true)
    expect(gateway.active).toBe(0)
  })
})

describe("the Responses WebSocket mode", () => {
  it("relays response.create frames to the upstream's WebSocket and its events back, one record per response", async () => {
    const { gateway, replay, records } = await start([finalTurn, finalTurn])
    const { WebSocket } = await import("ws")
    const socket = new WebSocket(gateway.urls.responsesWebSocket, {
      headers: { authorization: `Bearer ${CLIENT_KEY}` },
    })
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject))
    const events: Record<string, unknown>[] = []
    const turn = () =>
      new Promise<void>((resolve) => {
        const on = (data: unknown) => {
          const event = JSON.parse(String(data)) as Record<string, unknown>
          events.push(event)
          if (event.type === "response.completed") {
            socket.off("message", on)
            resolve()
          }
        }
        socket.on("message", on)
      })
    const first = turn()
    socket.send(JSON.stringify({ type: "response.create", model: "gpt-resp-1", input: "hi", store: false }))
    await first
    const id = (events.at(-1)!.response as { id: string }).id
    const second = turn()
    socket.send(
      JSON.stringify({
        type: "response.create",
        model: "gpt-resp-1",
        input: "more",
        previous_response_id: id,
        store: false,
      }),
    )
    await second
    socket.close()
    expect(replay.requests.map((r) => [r.transport, r.outcome])).toEqual([
      ["websocket", "answered"],
      ["websocket", "answered"],
    ])
    expect(replay.requests[0]!.headers.authorization).toBe("[redacted]")
    expect(records.map((r) => [r.transport, r.usage?.input, r.stop])).toEqual([
      ["websocket", 300, "end"],
      ["websocket", 300, "end"],
    ])
  })
})

describe("shutdown and disconnects", () => {
  /** An upstream that streams a Chat answer in two halves, `pause` ms apart; reports when its client left. */
  async function slowUpstream(pause: number) {
    const left: string[] = []
    raw = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (text: string) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })}\n\n`
      res.write(chunk("first half, "))
      const timer = setTimeout(() => {
        res.write(chunk("second half"))
        res.end(
          `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
        )
      }, pause)
      res.on("close", () => {
        clearTimeout(timer)
        if (!res.writableFinished) left.push(req.url ?? "")
      })
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { slow: { provider: "openai", format: "openai-chat", baseUrl: url } },
        routes: [{ match: "*", upstream: "slow" }],
      },
      env: {},
    })
    return left
  }
  const body = JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] })

  it("lets a running stream finish on close, and refuses new connections", async () => {
    await slowUpstream(300)
    const g = gateway!
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    })
    const closing = g.close(5000)
    const text = await res.text()
    expect(text).toContain("second half")
    expect(text).toContain("[DONE]")
    await closing
    await expect(fetch(`${g.url}/v1/models`)).rejects.toThrow()
  })

  it("cuts running streams when the grace ends", async () => {
    await slowUpstream(5000)
    const g = gateway!
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    })
    await g.close(100)
    await expect(res.text()).rejects.toThrow()
  })

  it("cancels the upstream request when the client goes away", async () => {
    const left = await slowUpstream(5000)
    const abort = new AbortController()
    const res = await fetch(`${gateway!.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      signal: abort.signal,
    })
    const reader = res.body!.getReader()
    await reader.read()
    abort.abort()
    for (let i = 0; i < 100 && left.length === 0; i++) await new Promise((r) => setTimeout(r, 10))
    expect(left).toEqual(["/v1/chat/completions"])
  })
})
