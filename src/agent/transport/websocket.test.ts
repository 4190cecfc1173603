import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { WebSocketServer } from "ws"
import type { Message } from "../../history/message.js"
import { accumulate } from "../../providers/accumulate.js"
import { endpointFor } from "../../providers/endpoints.js"
import { ProviderError } from "../../providers/errors.js"
import type { StreamEvent } from "../../providers/stream.js"
import { type ReplayServer, startReplayServer } from "../../replay/server.js"
import { finalTurn, richTurn, scriptOf } from "../../replay/test-helpers/fixtures.js"
import type { Sleep } from "./retry.js"
import type { SocketResponse } from "./socket-response.js"
import { startTcpProxy, type TcpProxy } from "./test-helpers/proxy.js"
import { encodedRequest, fixedServer, HISTORY } from "./test-helpers/requests.js"
import { ResponsesSocket, type ResponsesSocketOptions, responseCreateEvent, SocketBusyError } from "./websocket.js"

let server: ReplayServer | undefined
let proxy: TcpProxy | undefined
let socket: ResponsesSocket | undefined
afterEach(async () => {
  await socket?.close()
  await proxy?.close()
  await server?.close()
  socket = proxy = server = undefined
})

function recordingSleep(): { sleep: Sleep; asked: number[] } {
  const asked: number[] = []
  return { asked, sleep: async (ms) => void asked.push(ms) }
}

/** A replay server, a proxy in front of it, and a socket through the proxy. */
async function setUp(turns: Parameters<typeof scriptOf>, options: ResponsesSocketOptions = {}) {
  server = await startReplayServer({ script: scriptOf(...turns) })
  proxy = await startTcpProxy(server.url)
  const endpoint = endpointFor({
    provider: "openai",
    env: { OPENAI_API_KEY: "sk-test" },
    baseUrl: `http://${proxy.host}/v1`,
  })
  socket = new ResponsesSocket(endpoint, options)
  return { server, proxy, socket }
}

/** Distinct WebSocket connections the replay server saw (each handshake has its own key). */
function serverConnections(replay: ReplayServer): number {
  const ws = replay.requests.filter((r) => r.transport === "websocket")
  return new Set(ws.map((r) => r.headers["sec-websocket-key"])).size
}

const firstBody = () => encodedRequest("openai-responses").body

/** The request of the second turn: the first answer and its tool results appended. */
function secondBody(assistant: Message): unknown {
  const calls = assistant.content.flatMap((b) => (b.type === "tool_use" ? [b] : []))
  const results: Message = {
    id: "u2",
    role: "user",
    ts: 3,
    content: calls.map((c) => ({ type: "tool_result", toolUseId: c.id, content: "done" })),
  }
  return encodedRequest("openai-responses", { messages: [...HISTORY, assistant, results] }).body
}

function expectRichTurn(assembled: Awaited<ReturnType<typeof accumulate>>): void {
  expect(assembled.errors).toEqual([])
  const text = assembled.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
  expect(text).toBe(richTurn.text)
  const calls = assembled.message.content.flatMap((b) => (b.type === "tool_use" ? [[b.name, b.input]] : []))
  expect(calls).toEqual(richTurn.toolCalls.map((c) => [c.name, c.input]))
}

const textOf = (assembled: Awaited<ReturnType<typeof accumulate>>) =>
  assembled.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")

describe("ResponsesSocket", () => {
  it("carries two turns on one connection, opened on the first request", async () => {
    const { server, socket } = await setUp([richTurn, finalTurn])
    expect(socket.connections).toBe(0)
    const first = await accumulate(await socket.send(firstBody()), { ts: 2 })
    expectRichTurn(first)
    expect(first.stopReason).toBe("tool_use")
    const second = await socket.send(secondBody(first.message))
    expect(second.status).toBe(101)
    const assembled = await accumulate(second, { ts: 4 })
    expect(textOf(assembled)).toBe(finalTurn.text)
    expect(assembled.usage).toMatchObject({ input: 300, output: 8 })
    expect(second.stats.payloads).toBeGreaterThan(2)
    expect(socket.connections).toBe(1)
    expect(serverConnections(server)).toBe(1)
    expect(server.requests.map((r) => [r.transport, r.outcome])).toEqual([
      ["websocket", "answered"],
      ["websocket", "answered"],
    ])
    const sent = server.requests[0]!.body as Record<string, unknown>
    expect(sent.type).toBe("response.create")
    expect(sent).not.toHaveProperty("stream")
    expect(server.requests[0]!.headers.authorization).toBe("[redacted]")
    server.assertComplete()
  })

  it("opens a new connection when the last one dropped between turns", async () => {
    const { server, proxy, socket } = await setUp([richTurn, finalTurn])
    expectRichTurn(await accumulate(await socket.send(firstBody()), { ts: 2 }))
    proxy.dropAll()
    await expect.poll(() => socket.connected).toBe(false)
    expect(textOf(await accumulate(await socket.send(firstBody()), { ts: 4 }))).toBe(finalTurn.text)
    expect(socket.connections).toBe(2)
    expect(serverConnections(server)).toBe(2)
  })

  it("reconnects once and sends again when a connection that looked open dies before answering", async () => {
    const { server, proxy, socket } = await setUp([richTurn, finalTurn])
    expectRichTurn(await accumulate(await socket.send(firstBody()), { ts: 2 }))
    proxy.dropOnNextSend()
    const retries: unknown[] = []
    const response = await socket.send(firstBody(), { onRetry: (r) => retries.push(r) })
    expect(textOf(await accumulate(response, { ts: 4 }))).toBe(finalTurn.text)
    expect(retries).toEqual([])
    expect(socket.connections).toBe(2)
    expect(proxy.connections).toBe(2)
    // The dropped request never reached the server.
    expect(server.requests).toHaveLength(2)
  })

  it("a connection cut mid-answer ends the stream with a network error; the next request reconnects", async () => {
    const { server, socket } = await setUp([richTurn])
    server.injectFault(0, { kind: "disconnect" })
    const events: StreamEvent[] = []
    for await (const event of await socket.send(firstBody())) events.push(event)
    expect(events.some((e) => e.type === "error" && e.kind === "network")).toBe(true)
    expect(events.at(-1)).toEqual({ type: "stop", reason: "error" })
    expectRichTurn(await accumulate(await socket.send(firstBody()), { ts: 2 }))
    expect(socket.connections).toBe(2)
  })

  it("a rate-limit error frame is retried after the backoff on the same connection", async () => {
    const { sleep, asked } = recordingSleep()
    const retries: string[] = []
    const { server, socket } = await setUp([{ ...richTurn, faults: [{ kind: "rate-limit", retryAfter: 1 }] }], {
      retry: { sleep, random: () => 0 },
      onRetry: (r) => retries.push(`${r.attempt}:${r.error.kind}:${r.error.status}`),
    })
    const response = await socket.send(firstBody())
    expect(response.attempts).toBe(2)
    expectRichTurn(await accumulate(response, { ts: 2 }))
    expect(asked).toEqual([1000])
    expect(retries).toEqual(["1:rate-limit:429"])
    expect(socket.connections).toBe(1)
    expect(server.requests.map((r) => r.outcome)).toEqual(["fault", "answered"])
  })

  it("a context-overflow error frame fails at once with kind context-overflow", async () => {
    const { sleep, asked } = recordingSleep()
    const { server, socket } = await setUp([richTurn], { retry: { sleep } })
    server.injectFault(0, { kind: "context-overflow" })
    const error = await socket.send(firstBody()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ProviderError)
    expect((error as ProviderError).kind).toBe("context-overflow")
    expect((error as Error).message).toMatch(/^WebSocket error 400: context_length_exceeded: /)
    expect(asked).toEqual([])
    // The connection stays usable: the turn is still there.
    expectRichTurn(await accumulate(await socket.send(firstBody()), { ts: 2 }))
    expect(socket.connections).toBe(1)
  })

  it("a refused handshake (401) fails at once with an auth error", async () => {
    const refusing = await fixedServer(401, {
      error: { message: "Incorrect API key provided", type: "invalid_request_error", code: "invalid_api_key" },
    })
    try {
      const endpoint = endpointFor({
        provider: "openai",
        env: { OPENAI_API_KEY: "bad" },
        baseUrl: `${refusing.url}/v1`,
      })
      const { sleep, asked } = recordingSleep()
      socket = new ResponsesSocket(endpoint, { retry: { sleep } })
      const error = await socket.send(firstBody()).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ProviderError)
      expect((error as ProviderError).kind).toBe("auth")
      expect((error as Error).message).toBe("HTTP 401: Incorrect API key provided")
      expect(refusing.hits()).toBe(1)
      expect(asked).toEqual([])
    } finally {
      await refusing.close()
    }
  })

  it("refuses a second request while one is in flight", async () => {
    const { socket } = await setUp([richTurn, finalTurn])
    const first = socket.send(firstBody())
    await expect(socket.send(firstBody())).rejects.toBeInstanceOf(SocketBusyError)
    expectRichTurn(await accumulate(await first, { ts: 2 }))
    expect(textOf(await accumulate(await socket.send(firstBody()), { ts: 4 }))).toBe(finalTurn.text)
  })

  it("an abort while reading throws the reason and closes the connection", async () => {
    const { socket } = await setUp([richTurn, finalTurn])
    const controller = new AbortController()
    const response = await socket.send(firstBody(), { signal: controller.signal })
    const reason = new Error("interrupted")
    controller.abort(reason)
    await expect(accumulate(response, { ts: 2 })).rejects.toBe(reason)
    expect(socket.connected).toBe(false)
  })

  it("an abort after the whole answer arrived but before it was read still throws the reason", async () => {
    const { socket } = await setUp([richTurn, finalTurn])
    const controller = new AbortController()
    const response = await socket.send(firstBody(), { signal: controller.signal })
    await new Promise<void>((resolve) => (response as SocketResponse).onEnd(resolve))
    const reason = new Error("interrupted")
    controller.abort(reason)
    await expect(accumulate(response, { ts: 2 })).rejects.toBe(reason)
  })

  it("replaces a connection older than maxAgeMs before the next request", async () => {
    let clock = 0
    const { socket } = await setUp([richTurn, finalTurn], { maxAgeMs: 1000, now: () => clock })
    expectRichTurn(await accumulate(await socket.send(firstBody()), { ts: 2 }))
    clock = 5000
    expect(textOf(await accumulate(await socket.send(firstBody()), { ts: 4 }))).toBe(finalTurn.text)
    expect(socket.connections).toBe(2)
  })

  it("opens a new connection when the server says the connection limit was reached", async () => {
    // A server that, like OpenAI after 60 minutes, refuses further responses on its first connection.
    const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" })
    await new Promise<void>((resolve) => wss.once("listening", () => resolve()))
    let accepted = 0
    wss.on("connection", (ws) => {
      const n = ++accepted
      ws.on("message", () => {
        if (n === 1) {
          const error = { type: "invalid_request_error", code: "websocket_connection_limit_reached", message: "limit" }
          ws.send(JSON.stringify({ type: "error", status: 400, error }))
          return
        }
        const response = { id: "resp_1", object: "response", model: "gpt-5", status: "in_progress" }
        ws.send(JSON.stringify({ type: "response.created", response }))
        ws.send(
          JSON.stringify({
            type: "response.output_text.delta",
            item_id: "msg_1",
            output_index: 0,
            content_index: 0,
            delta: "fresh",
          }),
        )
        const usage = { input_tokens: 5, output_tokens: 1 }
        ws.send(JSON.stringify({ type: "response.completed", response: { ...response, status: "completed", usage } }))
      })
    })
    try {
      const { port } = wss.address() as AddressInfo
      const endpoint = endpointFor({ provider: "openai", env: {}, apiKey: "k", baseUrl: `http://127.0.0.1:${port}/v1` })
      socket = new ResponsesSocket(endpoint)
      const assembled = await accumulate(await socket.send(firstBody()), { ts: 2 })
      expect(textOf(assembled)).toBe("fresh")
      expect(assembled.stopReason).toBe("end")
      expect(accepted).toBe(2)
    } finally {
      await socket?.close()
      socket = undefined
      await new Promise<void>((resolve) => wss.close(() => resolve()))
    }
  })
})

describe("responseCreateEvent", () => {
  it("a socket needs an endpoint that speaks the Responses format", () => {
    const chat = endpointFor({ provider: "openai", format: "openai-chat", env: { OPENAI_API_KEY: "k" } })
    expect(() => new ResponsesSocket(chat)).toThrow(/needs an openai-responses endpoint, not openai-chat/)
  })

  it("wraps a create body as response.create without its HTTP-only fields", () => {
    expect(
      responseCreateEvent({ model: "gpt-5", stream: true, stream_options: {}, background: false, input: [] }),
    ).toEqual({
      type: "response.create",
      model: "gpt-5",
      input: [],
    })
  })
})
