import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../../models/types.js"
import { accumulate } from "../../providers/accumulate.js"
import { type Endpoint, endpointFor } from "../../providers/endpoints.js"
import { ProviderError } from "../../providers/errors.js"
import type { StreamEvent } from "../../providers/stream.js"
import { type ReplayServer, startReplayServer } from "../../replay/server.js"
import { finalTurn, richTurn, scriptOf } from "../../replay/test-helpers/fixtures.js"
import { send } from "./http.js"
import { ResponseConsumedError } from "./response.js"
import type { RetryInfo, Sleep } from "./retry.js"
import { encodedRequest, fixedServer } from "./test-helpers/requests.js"

const FORMATS: BuiltInWireFormat[] = ["anthropic", "openai-chat", "openai-responses", "gemini", "deepseek"]
const ENV = { ANTHROPIC_API_KEY: "k", OPENAI_API_KEY: "k", GEMINI_API_KEY: "k", DEEPSEEK_API_KEY: "k" }

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

/** The endpoint that points `format` at the replay server. */
function endpointOf(format: BuiltInWireFormat, replay: ReplayServer): Endpoint {
  switch (format) {
    case "anthropic":
      return endpointFor({ provider: "anthropic", env: ENV, baseUrl: replay.urls.anthropic })
    case "openai-chat":
    case "openai-responses":
      return endpointFor({ provider: "openai", format, env: ENV, baseUrl: replay.urls.openai })
    case "gemini":
      return endpointFor({ provider: "gemini", env: ENV, baseUrl: replay.urls.gemini })
    case "deepseek":
      return endpointFor({ provider: "deepseek", env: ENV, baseUrl: replay.url })
  }
}

/** A sleep that records the waits asked of it and returns at once. */
function recordingSleep(): { sleep: Sleep; asked: number[] } {
  const asked: number[] = []
  return { asked, sleep: async (ms) => void asked.push(ms) }
}

async function start(...turns: Parameters<typeof scriptOf>): Promise<ReplayServer> {
  server = await startReplayServer({ script: scriptOf(...turns) })
  return server
}

async function sendTo(
  format: BuiltInWireFormat,
  replay: ReplayServer,
  extra: Partial<Parameters<typeof send>[1]> = {},
) {
  const { body, model } = encodedRequest(format, extra.stream === false ? { stream: false } : {})
  return send(endpointOf(format, replay), { body, model: model.id, ...extra })
}

function expectRichTurn(assembled: Awaited<ReturnType<typeof accumulate>>): void {
  expect(assembled.errors).toEqual([])
  const text = assembled.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
  expect(text).toBe(richTurn.text)
  const calls = assembled.message.content.flatMap((b) => (b.type === "tool_use" ? [[b.name, b.input]] : []))
  expect(calls).toEqual(richTurn.toolCalls.map((c) => [c.name, c.input]))
  expect(assembled.stopReason).toBe("tool_use")
}

describe("send over HTTP", () => {
  it.each(FORMATS)("%s: streams the scripted turn, which assembles whole", async (format) => {
    const replay = await start(richTurn, finalTurn)
    const response = await sendTo(format, replay)
    expect(response.status).toBe(200)
    expect(response.attempts).toBe(1)
    expectRichTurn(await accumulate(response, { ts: 2 }))
    expect(response.stats.payloads).toBeGreaterThan(3)
    expect(response.stats.bytes).toBeGreaterThan(100)
    const request = replay.requests[0]!
    expect(request.outcome).toBe("answered")
    expect(request.format).toBe(format === "deepseek" ? "openai-chat" : format)
    const auth = { anthropic: "x-api-key", gemini: "x-goog-api-key" }[format as string] ?? "authorization"
    expect(request.headers[auth]).toBe("[redacted]")
    if (format === "anthropic") expect(request.headers["anthropic-version"]).toBe("2023-06-01")
    if (format === "gemini") expect(request.query).toBe("?alt=sse")
  })

  it.each(["anthropic", "openai-responses", "gemini"] as const)(
    "%s: an answer asked for without streaming turns into the same events",
    async (format) => {
      const replay = await start(richTurn)
      const response = await sendTo(format, replay, { stream: false })
      expectRichTurn(await accumulate(response, { ts: 2 }))
      expect(response.stats.payloads).toBe(1)
      if (format === "gemini") expect(replay.requests[0]!.path).toMatch(/:generateContent$/)
    },
  )

  it.each(FORMATS)("%s: a 429 with retry-after is retried after the stated delay", async (format) => {
    const replay = await start({ ...richTurn, faults: [{ kind: "rate-limit", retryAfter: 2 }] })
    const { sleep, asked } = recordingSleep()
    const retries: RetryInfo[] = []
    const response = await sendTo(format, replay, { retry: { sleep }, onRetry: (r) => retries.push(r) })
    expect(asked).toEqual([2000])
    expect(retries.map((r) => [r.attempt, r.delayMs, r.error.kind, r.error.status])).toEqual([
      [1, 2000, "rate-limit", 429],
    ])
    expect(response.attempts).toBe(2)
    expectRichTurn(await accumulate(response, { ts: 2 }))
    expect(replay.requests.map((r) => r.outcome)).toEqual(["fault", "answered"])
  })

  it("a 500 is retried after the backoff, then the turn arrives", async () => {
    const replay = await start(richTurn)
    replay.injectFault(0, { kind: "server-error" })
    const { sleep, asked } = recordingSleep()
    const response = await sendTo("openai-responses", replay, { retry: { sleep, random: () => 0 } })
    expect(asked).toEqual([1000])
    expectRichTurn(await accumulate(response, { ts: 2 }))
    expect(replay.requests.map((r) => r.status)).toEqual([500, 200])
  })

  it("Anthropic's 529 overloaded is a server error and is retried with jitter from the random source", async () => {
    const replay = await start(richTurn)
    replay.injectFault(0, { kind: "overloaded" })
    replay.injectFault(0, { kind: "overloaded" })
    const { sleep, asked } = recordingSleep()
    const retries: RetryInfo[] = []
    const response = await sendTo("anthropic", replay, {
      retry: { sleep, random: () => 0.5 },
      onRetry: (r) => retries.push(r),
    })
    // 1 s then 2 s, each less an eighth (half of the 25 % jitter share).
    expect(asked).toEqual([875, 1750])
    expect(retries.map((r) => [r.error.kind, r.error.status])).toEqual([
      ["server", 529],
      ["server", 529],
    ])
    expectRichTurn(await accumulate(response, { ts: 2 }))
  })

  it("retries give up after N, with the last error", async () => {
    const replay = await start(richTurn)
    for (let i = 0; i < 5; i++) replay.injectFault(0, { kind: "server-error" })
    const { sleep, asked } = recordingSleep()
    const error = await sendTo("gemini", replay, { retry: { sleep, maxRetries: 3, random: () => 0 } }).catch(
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).kind).toBe("server")
    expect((error as ProviderError).status).toBe(500)
    expect((error as Error).message).toMatch(/^HTTP 500: .*\(gave up after 3 retries\)$/)
    expect(asked).toEqual([1000, 2000, 4000])
    expect(replay.requests).toHaveLength(4)
    expect(replay.served).toBe(0)
  })

  it("a 401 fails at once with an auth error", async () => {
    const refusing = await fixedServer(401, {
      type: "error",
      error: { type: "authentication_error", message: "invalid x-api-key" },
    })
    try {
      const endpoint = endpointFor({ provider: "anthropic", env: ENV, baseUrl: refusing.url })
      const { body, model } = encodedRequest("anthropic")
      const { sleep, asked } = recordingSleep()
      const error = await send(endpoint, { body, model: model.id, retry: { sleep } }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).kind).toBe("auth")
      expect((error as ProviderError).retryable).toBe(false)
      expect((error as Error).message).toBe("HTTP 401: invalid x-api-key")
      expect(refusing.hits()).toBe(1)
      expect(asked).toEqual([])
    } finally {
      await refusing.close()
    }
  })

  it.each(FORMATS)("%s: a context-overflow 400 fails at once with kind context-overflow", async (format) => {
    const replay = await start(richTurn)
    replay.injectFault(0, { kind: "context-overflow" })
    const { sleep, asked } = recordingSleep()
    const error = await sendTo(format, replay, { retry: { sleep } }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).kind).toBe("context-overflow")
    expect((error as ProviderError).status).toBe(400)
    expect(asked).toEqual([])
    expect(replay.requests).toHaveLength(1)
  })

  it("a refused connection on this machine is a network error, not retried: nothing will start listening", async () => {
    const closed = await fixedServer(200, {})
    await closed.close()
    const endpoint = endpointFor({ provider: "ollama", env: {}, baseUrl: `${closed.url}/v1` })
    const { sleep, asked } = recordingSleep()
    const error = await send(endpoint, { body: {}, model: "qwen3:8b", retry: { sleep, maxRetries: 3 } }).catch(
      (e: unknown) => e,
    )
    expect((error as ProviderError).kind).toBe("network")
    expect((error as ProviderError).retryable).toBe(false)
    expect((error as Error).message).toMatch(/nothing listens at 127\.0\.0\.1:\d+ .*ECONNREFUSED/)
    expect(asked).toEqual([])
  })

  it("4xx answers other than 408, 409 and 429 are not retried; those three are", async () => {
    for (const [status, retried] of [
      [400, false],
      [404, false],
      [422, false],
      [408, true],
      [409, true],
      [429, true],
    ] as const) {
      const server = await fixedServer(status, { error: { message: "no" } })
      try {
        const endpoint = endpointFor({ provider: "ollama", env: {}, baseUrl: `${server.url}/v1` })
        const { sleep, asked } = recordingSleep()
        await send(endpoint, { body: {}, model: "qwen3:8b", retry: { sleep, maxRetries: 1, random: () => 0 } }).catch(
          () => undefined,
        )
        expect({ status, retried: asked.length > 0 }).toEqual({ status, retried })
      } finally {
        await server.close()
      }
    }
  })

  it("a request that cannot be built (a malformed URL) fails at once, without retries", async () => {
    const { sleep, asked } = recordingSleep()
    const endpoint: Endpoint = { ...endpointFor({ provider: "openai", env: ENV }), baseUrl: "not a url" }
    await expect(
      send(endpoint, { body: { model: "m" }, model: "m", retry: { sleep, random: () => 0 } }),
    ).rejects.toMatchObject({ code: "invalid-request-target" })
    expect(asked).toEqual([])
  })

  it("an abort during the wait ends the request at once with the signal's reason", async () => {
    const replay = await start({ ...richTurn, faults: [{ kind: "rate-limit", retryAfter: 30 }] })
    const controller = new AbortController()
    const reason = new Error("interrupted")
    const began = Date.now()
    const run = sendTo("anthropic", replay, {
      signal: controller.signal,
      onRetry: () => setTimeout(() => controller.abort(reason), 20),
    })
    await expect(run).rejects.toBe(reason)
    expect(Date.now() - began).toBeLessThan(10_000)
    expect(replay.requests).toHaveLength(1)
  })

  it("an abort while reading the stream throws the reason instead of events", async () => {
    const replay = await start(richTurn)
    const controller = new AbortController()
    const response = await sendTo("openai-chat", replay, { signal: controller.signal })
    const reason = new Error("stop reading")
    controller.abort(reason)
    await expect(accumulate(response, { ts: 2 })).rejects.toBe(reason)
  })

  it("a connection cut mid-stream is an error event in the stream, not a throw, and not retried here", async () => {
    const replay = await start(richTurn)
    replay.injectFault(0, { kind: "disconnect" })
    const response = await sendTo("anthropic", replay)
    const events: StreamEvent[] = []
    for await (const event of response) events.push(event)
    const errors = events.filter((e) => e.type === "error")
    expect(errors.some((e) => e.type === "error" && e.kind === "network")).toBe(true)
    expect(events.at(-1)).toEqual({ type: "stop", reason: "error" })
    expect(replay.requests).toHaveLength(1)
    // The loop decides to ask again; the turn is still there.
    expectRichTurn(await accumulate(await sendTo("anthropic", replay), { ts: 2 }))
  })

  it("a response can be read once", async () => {
    const replay = await start(richTurn)
    const response = await sendTo("deepseek", replay)
    await accumulate(response, { ts: 2 })
    expect(() => response.batches()).toThrow(ResponseConsumedError)
  })
})

describe("send tells the decoder what the request asked for", () => {
  it("a Chat stream without the usage chunk that include_usage asked for is incomplete", async () => {
    const recorded = readFileSync(
      new URL("../../../test/fixtures/streams/openai-chat/openai-text.chunks.txt", import.meta.url),
      "utf8",
    )
    // The recording without its usage chunk, as the provider would send it.
    const lines = recorded.split("\n").filter((l) => l.trim() !== "" && !l.includes('"usage":{'))
    const sse = `${lines.map((l) => `data: ${l}\n\n`).join("")}data: [DONE]\n\n`
    const http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(sse)
    })
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve))
    try {
      const baseUrl = `http://127.0.0.1:${(http.address() as AddressInfo).port}/v1`
      const endpoint = endpointFor({ provider: "openai", format: "openai-chat", env: ENV, baseUrl })
      const { body, model } = encodedRequest("openai-chat")
      expect(body).toMatchObject({ stream_options: { include_usage: true } })
      const asked = await accumulate(await send(endpoint, { body, model: model.id }), { ts: 1 })
      expect([asked.complete, asked.stopReason, asked.errors.map((e) => e.kind)]).toEqual([
        false,
        "error",
        ["truncated"],
      ])
      const { stream_options: _, ...plain } = body as Record<string, unknown>
      const unasked = await accumulate(await send(endpoint, { body: plain, model: model.id }), { ts: 1 })
      expect([unasked.complete, unasked.stopReason]).toEqual([true, "end"])
    } finally {
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })
})
