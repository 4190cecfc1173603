/**
 * The requests that used to end the gateway, or answer 500, and their neighbours: a path whose percent escapes
 * are not valid, a request target that is not a URL (plain and as an upgrade), JSON nested far deeper than any
 * real request (in each client API's body and in a WebSocket message), frames the WebSocket protocol forbids,
 * an upstream stream its decoder cannot read, and a record hook that throws. Each is answered (or its socket
 * closed) and the gateway serves the next request.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { afterEach, describe, expect, it } from "vitest"
import WebSocket from "ws"
import type { GatewayConfig } from "../config/gateway.js"
import { MAX_JSON_DEPTH, nestsDeeperThan } from "../json.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { nestedJson, sendRaw, wsFrame } from "./test-helpers/raw-requests.js"

const TOKEN = "gw-token-0123456789"

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

/** A gateway whose routes all reach the replay server: same-format per client API, and a fitted translation. */
async function start(extra: Partial<GatewayConfig> = {}, env: Record<string, string> = {}) {
  replay = await startReplayServer({ script: scriptOf(finalTurn), loop: true })
  const url = replay.url
  const records: GatewayRecord[] = []
  const errors: { where: string; message: string }[] = []
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: {
        anthropic: { provider: "anthropic", baseUrl: url, keyEnv: "UP_KEY" },
        chat: { provider: "openai", format: "openai-chat", baseUrl: `${url}/v1`, keyEnv: "UP_KEY" },
        responses: { provider: "openai", format: "openai-responses", baseUrl: `${url}/v1`, keyEnv: "UP_KEY" },
        gemini: { provider: "gemini", baseUrl: url, keyEnv: "UP_KEY" },
      },
      routes: [
        { match: "claude-*", upstream: "anthropic" },
        { match: "fit-*", upstream: "chat", fit: true, cache: "optimize" },
        { match: "gpt-*", upstream: "chat" },
        { match: "o-*", upstream: "responses" },
        { match: "gemini-*", upstream: "gemini" },
      ],
      ...extra,
    },
    env: { UP_KEY: "sk-up", ...env },
    onRequest: (r) => records.push(r),
    onError: (error, where) => errors.push({ where, message: error.message }),
  })
  return { gateway, records, errors }
}

const port = (gw: Gateway) => Number(new URL(gw.url).port)

/** POSTs JSON text to a path of the gateway; the status and parsed body. */
async function post(gw: Gateway, path: string, text: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "k", ...headers },
    body: text,
  })
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

/** The gateway still answers: a whole Anthropic answer through the official SDK. */
async function stillServes(gw: Gateway, apiKey = "k") {
  const client = new Anthropic({ apiKey, baseURL: gw.urls.anthropic, maxRetries: 0 })
  const answer = await client.messages.create({
    model: "claude-x",
    max_tokens: 5,
    messages: [{ role: "user", content: "hi" }],
  })
  expect(answer.content).toEqual([expect.objectContaining({ text: finalTurn.text })])
}

describe("a path or target that cannot be read", () => {
  it("answers a Gemini model name that is not valid percent-encoding 400 on each of its paths, after the token", async () => {
    const { gateway: gw } = await start({ tokenEnv: "GW_TOKEN" }, { GW_TOKEN: TOKEN })
    const body = JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] })
    for (const verb of ["generateContent", "streamGenerateContent", "countTokens"]) {
      const path = `/v1beta/models/%ZZ:${verb}`
      expect((await post(gw, path, body, { "x-api-key": "wrong" })).status).toBe(401)
      const refused = await post(gw, path, body, { "x-api-key": TOKEN })
      expect(refused).toEqual({
        status: 400,
        body: {
          error: {
            code: 400,
            status: "INVALID_ARGUMENT",
            message: "the model name in the path (%ZZ) is not valid percent-encoding",
          },
        },
      })
    }
    await stillServes(gw, TOKEN)
  })

  it("answers a request target that is not a URL 400, and refuses it as an upgrade", async () => {
    const { gateway: gw, records } = await start()
    const plain = await sendRaw(port(gw), {
      bytes: Buffer.from("GET http://[::1 HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n"),
      frames: [],
      halfClose: false,
    })
    expect(plain).toMatch(/^HTTP\/1\.1 400 /)
    expect(plain).toContain("the request target is neither a path nor a valid absolute URL")
    expect(records.at(-1)).toMatchObject({ status: 400, error: { kind: "invalid-request" } })
    const upgrade = await sendRaw(port(gw), {
      bytes: Buffer.from(
        "GET http://[::1 HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
      ),
      frames: [],
      halfClose: false,
    })
    expect(upgrade).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
    await stillServes(gw)
  })
})

describe("JSON nested deeper than the limit", () => {
  const deep = nestedJson(20_000)
  const limit = new RegExp(`deeper than ${MAX_JSON_DEPTH} levels, the gateway's limit`)
  const cases: [string, string, string][] = [
    [
      "an Anthropic tool schema",
      "/v1/messages",
      `{"model":"claude-x","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"t","input_schema":${deep}}]}`,
    ],
    [
      "Anthropic message content",
      "/v1/messages",
      `{"model":"fit-x","max_tokens":5,"messages":[{"role":"user","content":${deep}}]}`,
    ],
    [
      "a tool call's input",
      "/v1/messages",
      `{"model":"fit-x","max_tokens":5,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"t","input":{"a":${deep}}}]}]}`,
    ],
    ["OpenAI Chat messages", "/v1/chat/completions", `{"model":"gpt-x","messages":${deep}}`],
    ["OpenAI Responses input", "/v1/responses", `{"model":"o-x","input":${deep}}`],
    ["a Gemini body", "/v1beta/models/gemini-x:generateContent", `{"contents":${deep}}`],
    ["a token count", "/v1/messages/count_tokens", `{"model":"fit-x","messages":${deep}}`],
    ["a body that is only nesting", "/v1/messages", deep],
  ]

  it.each(cases)("refuses %s with a 400 that names the limit", async (_what, path, text) => {
    const { gateway: gw, records } = await start()
    const answer = await post(gw, path, text)
    expect(answer.status).toBe(400)
    expect(JSON.stringify(answer.body)).toMatch(limit)
    expect(records.at(-1)?.error?.message).toMatch(limit)
    await stillServes(gw)
  })

  it("serves a request nested exactly to the limit, translated, fitted and forwarded", async () => {
    const { gateway: gw } = await start()
    // body { messages [ message { content [ block { input { a: [[…]] } } ] } ] }: six levels before the nesting.
    const text = (model: string) =>
      `{"model":"${model}","max_tokens":5,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"t","input":{"a":${nestedJson(MAX_JSON_DEPTH - 6)}}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"ok"}]}]}`
    expect(nestsDeeperThan(text("m"), MAX_JSON_DEPTH)).toBe(false)
    expect(nestsDeeperThan(text("m"), MAX_JSON_DEPTH - 1)).toBe(true)
    for (const model of ["fit-x", "claude-x"]) {
      const answer = await post(gw, "/v1/messages", text(model))
      expect([model, answer.status]).toEqual([model, 200])
    }
  })

  it("answers a WebSocket message nested past the limit with an error event naming it, and goes on", async () => {
    const { gateway: gw } = await start()
    const socket = new WebSocket(gw.urls.responsesWebSocket, { headers: { authorization: "Bearer k" } })
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject))
    const next = () =>
      new Promise<Record<string, unknown>>((resolve) => socket.once("message", (d) => resolve(JSON.parse(String(d)))))
    const refused = next()
    socket.send(`{"type":"response.create","model":"o-x","input":${deep}}`)
    expect(await refused).toMatchObject({
      type: "error",
      status: 400,
      error: { message: expect.stringMatching(limit) },
    })
    socket.close()
    await stillServes(gw)
  })
})

describe("frames the WebSocket protocol forbids", () => {
  it.each([
    ["unmasked", wsFrame(0x1, Buffer.from('{"type":"response.create"}'), { mask: false })],
    ["text that is not UTF-8", wsFrame(0x1, Buffer.from([0xc3, 0x28]))],
    ["a reserved opcode", wsFrame(0x3, Buffer.from("x"))],
    ["larger than bodyLimit", wsFrame(0x1, Buffer.alloc(2048, 0x61))],
  ])("closes the connection on a frame %s, and serves the next request", async (_what, frame) => {
    const { gateway: gw, errors } = await start({ bodyLimit: 1024 })
    const answer = await sendRaw(port(gw), {
      bytes: Buffer.from(
        "GET /v1/responses HTTP/1.1\r\nhost: x\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n",
      ),
      frames: [frame],
      halfClose: false,
    })
    expect(answer).toMatch(/^HTTP\/1\.1 101 /)
    // The server's close frame: opcode 8.
    expect(answer.slice(answer.indexOf("\r\n\r\n") + 4).charCodeAt(0)).toBe(0x88)
    expect(errors).toEqual([])
    await stillServes(gw)
  })
})

describe("failures off the answer's path", () => {
  it("forwards an upstream stream of payloads that are not events, byte for byte, and goes on", async () => {
    const events = [
      "event: message_start\ndata: null\n\n",
      "event: ping\ndata: 7\n\n",
      'data: {"type":"message_stop"}\n\n',
    ]
    raw = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.end(events.join(""))
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}`
    const records: GatewayRecord[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { odd: { provider: "anthropic", baseUrl: url } },
        routes: [{ match: "*", upstream: "odd" }],
      },
      env: {},
      onRequest: (r) => records.push(r),
    })
    const res = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({ model: "m", max_tokens: 5, stream: true, messages: [{ role: "user", content: "hi" }] }),
    })
    expect(await res.text()).toBe(events.join(""))
    expect(records.at(-1)).toMatchObject({ status: 200 })
    const again = await fetch(`${gateway.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": "k" },
      body: JSON.stringify({ model: "m", max_tokens: 5, messages: [{ role: "user", content: "hi" }] }),
    })
    expect(again.status).toBe(200)
  })

  it("reports a record hook that throws, and answers every request all the same", async () => {
    replay = await startReplayServer({ script: scriptOf(finalTurn), loop: true })
    const errors: string[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { a: { provider: "anthropic", baseUrl: replay.url, keyEnv: "UP_KEY" } },
        routes: [{ match: "*", upstream: "a" }],
      },
      env: { UP_KEY: "sk-up" },
      onRequest: () => {
        throw new Error("the log is full")
      },
      onError: (error, where) => errors.push(`${where}: ${error.message}`),
    })
    await stillServes(gateway)
    await stillServes(gateway)
    expect(errors).toEqual(["record: the log is full", "record: the log is full"])
  })
})
