/**
 * Translate mode over the Responses WebSocket: the official `openai` SDK's WebSocket client (`ResponsesWS`) → the
 * gateway → the replay server speaking each other wire format over HTTP. Plain text (the same events the HTTP
 * stream carries), a tool-call round trip continued with `previous_response_id` and only the new input, a 429 and
 * an overflow as WebSocket error events, one response at a time, the client's close aborting the upstream call.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import { afterEach, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { PLACEHOLDER_DESCRIPTION } from "../providers/test-helpers/client-bodies.js"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { scriptOf } from "../replay/test-helpers/fixtures.js"
import { logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"
import { traceInputOf } from "./traces.js"

const UPSTREAMS: Record<BuiltInWireFormat, { provider: string; model: string; path: string }> = {
  anthropic: { provider: "anthropic", model: "claude-sonnet-4-5", path: "" },
  "openai-chat": { provider: "openai", model: "gpt-4.1", path: "/v1" },
  "openai-responses": { provider: "openai", model: "gpt-5", path: "/v1" },
  gemini: { provider: "gemini", model: "gemini-2.5-flash", path: "" },
  deepseek: { provider: "deepseek", model: "deepseek-chat", path: "" },
}
const FORMATS = Object.keys(UPSTREAMS) as BuiltInWireFormat[]
const schema = { type: "object", properties: { path: { type: "string" } }, required: ["path"] }
const tools = [
  { type: "function" as const, name: "read_file", description: "Reads a file.", parameters: schema, strict: false },
]
const FINAL = "The file is empty."

let replay: ReplayServer | undefined
let gateway: Gateway | undefined
let raw: Server | undefined
const sockets: ResponsesWS[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.close()
  await gateway?.close(0)
  await replay?.close()
  raw?.closeAllConnections()
  await new Promise<void>((resolve) => (raw ? raw.close(() => resolve()) : resolve()))
  gateway = replay = raw = undefined
})

async function start(turns: Parameters<typeof scriptOf>) {
  replay = await startReplayServer({ script: scriptOf(...turns) })
  const records: GatewayRecord[] = []
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: Object.fromEntries(
        FORMATS.map((f) => [
          f,
          { provider: UPSTREAMS[f].provider, format: f, baseUrl: `${replay!.url}${UPSTREAMS[f].path}`, keyEnv: "K" },
        ]),
      ),
      routes: FORMATS.map((f) => ({ match: `to-${f}`, upstream: f, model: UPSTREAMS[f].model, mode: "translate" })),
    },
    env: { K: "sk-fake-socket-key-000" },
    onRequest: (r) => records.push(r),
    // A fixed clock: the `created` fields of both transports' answers agree.
    clock: () => 1_790_000_000_000,
  })
  return { replay, gateway, records }
}

/** The SDK's WebSocket client on the gateway. */
async function connect(g: Gateway): Promise<ResponsesWS> {
  const socket = new ResponsesWS(new OpenAI({ apiKey: "client", baseURL: g.urls.openai, maxRetries: 0 }))
  sockets.push(socket)
  socket.on("error", () => {})
  await new Promise<void>((resolve) => socket.socket.on("open", () => resolve()))
  return socket
}

type Event = Record<string, unknown> & { type: string }

/** Sends one response.create and collects its events up to the terminal one (or the error event). */
function respond(socket: ResponsesWS, body: Record<string, unknown>): Promise<Event[]> {
  const events: Event[] = []
  return new Promise((resolve) => {
    const on = (event: unknown) => {
      const e = event as Event
      events.push(e)
      if (["response.completed", "response.failed", "response.incomplete"].includes(e.type) || "status" in e) {
        socket.off("event", on)
        resolve(events)
      }
    }
    socket.on("event", on)
    socket.send({ type: "response.create", ...body } as never)
  })
}

const responseOf = (events: Event[]) => events.at(-1)!.response as OpenAI.Responses.Response
/** The text of a response's message items (`output_text` is the SDK's convenience, not on the wire). */
const textOf = (events: Event[]) =>
  responseOf(events)
    .output.flatMap((o) => (o.type === "message" ? o.content : []))
    .map((c) => (c.type === "output_text" ? c.text : ""))
    .join("")

describe("translate mode over the Responses WebSocket, the SDK's ResponsesWS as the client", () => {
  for (const upstream of FORMATS) {
    it(`${upstream} upstream: text as the HTTP stream's events, a tool round trip on previous_response_id, a 429 and an overflow`, async () => {
      const { replay, gateway, records } = await start([
        { text: FINAL },
        { text: FINAL },
        { toolCalls: [{ name: "read_file", input: { path: "a.ts" } }] },
        { text: FINAL },
        { text: FINAL },
      ])
      const model = `to-${upstream}`
      const socket = await connect(gateway)

      // Plain text: the events are those the HTTP stream of the same request carries (the response id aside).
      const overSocket = await respond(socket, { model, input: "hi", store: false })
      const http = await fetch(`${gateway.urls.openai}/responses`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer client" },
        body: JSON.stringify({ model, input: "hi", store: false, stream: true }),
      })
      const overHttp = (await http.text())
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => JSON.parse(line.slice(6)) as Event)
      const sameIds = (events: Event[]) =>
        JSON.parse(JSON.stringify(events).replace(/(resp|msg|rs|fc)_[A-Za-z0-9_]+/g, "$1_id")) as unknown
      expect(sameIds(overSocket)).toEqual(sameIds(overHttp))
      expect(textOf(overSocket)).toBe(FINAL)

      // A tool-call round trip: the second response.create sends only the call's output.
      const first = await respond(socket, { model, input: "read a.ts", tools, store: false })
      const call = responseOf(first).output.find((o) => o.type === "function_call")!
      expect([call.name, JSON.parse(call.arguments)]).toEqual(["read_file", { path: "a.ts" }])
      const second = await respond(socket, {
        model,
        tools,
        store: false,
        previous_response_id: responseOf(first).id,
        input: [{ type: "function_call_output", call_id: call.call_id, output: "" }],
      })
      expect(textOf(second)).toBe(FINAL)
      // The stateless upstream got the whole conversation, the result paired with its call.
      const seen = replay.requests.at(-1)!
      const route = upstream === "gemini" ? { model: UPSTREAMS.gemini.model } : undefined
      const decoded = formatModule(upstream).decodeRequest(seen.body, route)
      expect(decoded.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
      const use = decoded.messages[1]!.content.find((b) => b.type === "tool_use")
      const result = decoded.messages[2]!.content.find((b) => b.type === "tool_result")
      expect(use && "id" in use && result && "toolUseId" in result && result.toolUseId === use.id).toBe(true)

      // A 429 keeps its wait (in the message: no header here); an overflow is OpenAI's overflow error.
      const next = replay.requests.filter((r) => r.outcome === "answered").length
      replay.injectFault(next, { kind: "rate-limit", retryAfter: 7 })
      replay.injectFault(next, { kind: "context-overflow" })
      replay.injectFault(next, { kind: "disconnect" })
      const limited = await respond(socket, { model, input: "again", store: false })
      expect(limited).toHaveLength(1)
      expect(limited[0]).toMatchObject({
        type: "error",
        status: 429,
        error: { code: "rate_limit_exceeded", message: expect.stringContaining("try again in 7s") },
      })
      const overflow = await respond(socket, { model, input: "again", store: false })
      expect(overflow[0]).toMatchObject({
        type: "error",
        status: 400,
        error: { code: "context_length_exceeded", type: "invalid_request_error", param: "input" },
      })
      // A stream the upstream cuts ends as the HTTP stream ends it: the error event, then response.failed.
      const cut = await respond(socket, { model, input: "again", store: false })
      expect(cut.slice(-2).map((e) => e.type)).toEqual(["error", "response.failed"])
      expect(cut.at(-2)).toMatchObject({ error: { type: "server_error" } })

      // One record per response, as the HTTP path keeps them (handed on once the turn the response ended is over).
      await new Promise((turn) => setImmediate(turn))
      const ws = records.filter((r) => r.transport === "websocket")
      expect(ws.map((r) => [r.mode, r.status, r.stop ?? r.error?.kind])).toEqual([
        ["translate", 200, "end"],
        ["translate", 200, "tool_use"],
        ["translate", 200, "end"],
        ["translate", 429, "rate-limit"],
        ["translate", 400, "context-overflow"],
        ["translate", 200, "error"],
      ])
      expect(ws[2]!.sent?.body).toEqual(seen.body)
      expect(ws[1]!.conversationKey).toBe(ws[2]!.conversationKey)
      expect(ws[0]!.usage).toBeDefined()
      expect(traceInputOf(ws[2]!)).toMatchObject({ clientApi: "openai-responses", upstream: { format: upstream } })
      expect(logLine(ws[2]!)).toContain(`openai-responses → ${upstream} (${upstream})`)
      expect(JSON.stringify(records)).not.toContain("sk-fake-socket-key-000")
    })
  }
})

describe("WebSocket-mode semantics when translating", () => {
  it("answers previous_response_id the connection does not hold, and evicts a response whose continuation failed", async () => {
    const { replay, gateway } = await start([{ text: FINAL }, { text: FINAL }])
    const model = "to-openai-chat"
    const socket = await connect(gateway)
    const unknown = await respond(socket, { model, input: "hi", previous_response_id: "resp_nope" })
    expect(unknown[0]).toMatchObject({
      type: "error",
      status: 400,
      error: { code: "previous_response_not_found", param: "previous_response_id" },
    })
    const first = await respond(socket, { model, input: "hi", store: false })
    const id = responseOf(first).id
    replay.injectFault(1, { kind: "rate-limit", retryAfter: 1 })
    const failed = await respond(socket, { model, input: "more", previous_response_id: id })
    expect(failed[0]).toMatchObject({ status: 429 })
    const again = await respond(socket, { model, input: "more", previous_response_id: id })
    expect(again[0]).toMatchObject({ status: 400, error: { code: "previous_response_not_found" } })
    // Another connection holds nothing of this one.
    const other = await connect(gateway)
    const elsewhere = await respond(other, { model, input: "more", previous_response_id: id })
    expect(elsewhere[0]).toMatchObject({ error: { code: "previous_response_not_found" } })
  })

  it("runs responses one at a time, in order: a second response.create waits for the first to end", async () => {
    const { gateway } = await start([{ text: "first answer" }, { text: "second answer" }])
    const socket = await connect(gateway)
    const all: Event[] = []
    socket.on("event", (e) => all.push(e as unknown as Event))
    const done = new Promise<void>((resolve) =>
      socket.on("event", (e) => {
        if ((e as unknown as Event).type === "response.completed" && all.filter((x) => x.type === e.type).length === 2)
          resolve()
      }),
    )
    socket.send({ type: "response.create", model: "to-anthropic", input: "one" } as never)
    socket.send({ type: "response.create", model: "to-anthropic", input: "two" } as never)
    await done
    const ends = all.flatMap((e, i) => (e.type === "response.completed" ? [i] : []))
    const starts = all.flatMap((e, i) => (e.type === "response.created" ? [i] : []))
    expect(starts[1]).toBeGreaterThan(ends[0]!)
    const texts = all.filter((e) => e.type === "response.output_text.done").map((e) => e.text)
    expect(texts).toEqual(["first answer", "second answer"])
  })

  it("warms up with generate: false (no upstream call) and continues from the warm-up", async () => {
    const { replay, gateway } = await start([{ text: FINAL }])
    const socket = await connect(gateway)
    const warm = await respond(socket, {
      model: "to-gemini",
      input: "context first",
      instructions: "Be terse.",
      generate: false,
    })
    expect(warm.map((e) => e.type)).toEqual(["response.created", "response.in_progress", "response.completed"])
    expect(replay.requests).toHaveLength(0)
    const answer = await respond(socket, {
      model: "to-gemini",
      input: "now answer",
      instructions: "Be terse.",
      previous_response_id: responseOf(warm).id,
    })
    expect(textOf(answer)).toBe(FINAL)
    const decoded = formatModule("gemini").decodeRequest(replay.requests[0]!.body, { model: "gemini-2.5-flash" })
    expect(decoded.messages.flatMap((m) => m.content).map((b) => ("text" in b ? b.text : ""))).toEqual([
      "context first",
      "now answer",
    ])
  })

  it("lets a running response finish when the gateway closes", async () => {
    raw = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      const chunk = (delta: Record<string, unknown>, finish: string | null) =>
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
      res.write(chunk({ content: "first half, " }, null))
      setTimeout(() => res.end(`${chunk({ content: "second half" }, null)}${chunk({}, "stop")}data: [DONE]\n\n`), 300)
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { slow: { provider: "openai", format: "openai-chat", baseUrl: url } },
        routes: [{ match: "*", upstream: "slow", mode: "translate" }],
      },
      env: {},
    })
    const socket = await connect(gateway)
    const answer = respond(socket, { model: "m", input: "hi" })
    await new Promise<void>((resolve) =>
      socket.on("event", (e) => {
        if ((e as unknown as Event).type === "response.output_text.delta") resolve()
      }),
    )
    expect(gateway.active).toBe(1)
    const closing = gateway.close(5000)
    expect(textOf(await answer)).toBe("first half, second half")
    await closing
  })

  it("lets 16 responses wait behind the running one, refuses more, and keeps a connection to one mode", async () => {
    raw = createServer((_req, res) => {
      // Never answers: the first response keeps running.
      res.writeHead(200, { "content-type": "text/event-stream" })
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: {
          slow: { provider: "openai", format: "openai-chat", baseUrl: url },
          resp: { provider: "openai", format: "openai-responses", baseUrl: url },
        },
        routes: [
          { match: "gpt-same", upstream: "resp" },
          { match: "*", upstream: "slow", mode: "translate" },
        ],
      },
      env: {},
    })
    const socket = await connect(gateway)
    const errors: Event[] = []
    socket.on("event", (e) => {
      if ((e as unknown as Event).type === "error") errors.push(e as unknown as Event)
    })
    for (let i = 0; i < 18; i++) socket.send({ type: "response.create", model: "m", input: `${i}` } as never)
    socket.send({ type: "response.create", model: "gpt-same", input: "x" } as never)
    for (let i = 0; i < 100 && errors.length < 2; i++) await new Promise((r) => setTimeout(r, 10))
    expect(errors.map((e) => (e.error as { message: string }).message)).toEqual([
      expect.stringContaining("16 responses already wait on this connection"),
      expect.stringContaining("this connection translates; model gpt-same goes to a same-format route"),
    ])
  })

  it("aborts the upstream request when the client closes mid-answer", async () => {
    const left: string[] = []
    raw = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(
        `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 0, model: "m", choices: [{ index: 0, delta: { content: "half" }, finish_reason: null }] })}\n\n`,
      )
      res.on("close", () => {
        if (!res.writableFinished) left.push(req.url ?? "")
      })
    })
    await new Promise<void>((resolve) => raw!.listen(0, "127.0.0.1", () => resolve()))
    const url = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v1`
    const records: GatewayRecord[] = []
    gateway = await startGateway({
      config: {
        port: 0,
        upstreams: { slow: { provider: "openai", format: "openai-chat", baseUrl: url } },
        routes: [{ match: "*", upstream: "slow", mode: "translate" }],
      },
      env: {},
      onRequest: (r) => records.push(r),
    })
    const socket = await connect(gateway)
    const delta = new Promise<void>((resolve) =>
      socket.on("event", (e) => {
        if ((e as unknown as Event).type === "response.output_text.delta") resolve()
      }),
    )
    socket.send({ type: "response.create", model: "m", input: "hi" } as never)
    await delta
    socket.close()
    for (let i = 0; i < 100 && (left.length === 0 || records.length === 0); i++)
      await new Promise((r) => setTimeout(r, 10))
    expect(left).toEqual(["/v1/chat/completions"])
    expect(records[0]).toMatchObject({ transport: "websocket", error: { kind: "network" } })
  })
})

describe("deferred tools over the Responses WebSocket, to an upstream that cannot defer them", () => {
  it("offers the functions the history loaded, and names the placeholder in the record as dropped", async () => {
    const { replay, gateway, records } = await start([{ text: FINAL }, { text: FINAL }])
    const socket = await connect(gateway)
    const deferred = [
      { type: "function", name: "write_file", description: "Writes a file.", parameters: schema, defer_loading: true },
      { type: "function", name: "keep", description: PLACEHOLDER_DESCRIPTION, parameters: schema, defer_loading: true },
    ]
    const model = "to-openai-chat"
    // Nothing loaded yet: the upstream gets the client's own function only.
    await respond(socket, { model, input: "hi", tools: [...tools, ...deferred], store: false })
    const offered = (i: number) =>
      formatModule("openai-chat")
        .decodeRequest(replay.requests[i]!.body)
        .prompt.tools.map((t) => t.name)
    expect(offered(0)).toEqual(["read_file"])
    // The history called write_file: it is loaded from then on; the placeholder never is.
    const input = [
      { role: "user", content: "write a.ts" },
      { type: "function_call", call_id: "call_w", name: "write_file", arguments: '{"path":"a.ts"}' },
      { type: "function_call_output", call_id: "call_w", output: "" },
    ]
    await respond(socket, { model, input, tools: [...tools, ...deferred], store: false })
    expect(offered(1)).toEqual(["read_file", "write_file"])
    expect(records.map((r) => r.dropped ?? [])).toEqual([["tools[2]"], ["tools[2]"]])
  })
})
