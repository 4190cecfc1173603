import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import { afterEach, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { type ReplayServer, startReplayServer } from "./server.js"
import { finalTurn, richTurn, sampleParameters, scriptOf } from "./test-helpers/fixtures.js"

const tools = [
  { type: "function", name: "read_file", parameters: sampleParameters },
  { type: "function", name: "execute_command", parameters: sampleParameters },
]

let server: ReplayServer | undefined
const sockets: WebSocket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.terminate()
  await server?.close()
  server = undefined
})

type Frame = Record<string, unknown> & { type: string }

/** A `ws` client that hands back the frames of one response at a time. */
class Connection {
  private readonly frames: Frame[] = []
  private wake: (() => void) | undefined
  private constructor(readonly socket: WebSocket) {
    socket.on("message", (data) => {
      this.frames.push(JSON.parse(String(data)) as Frame)
      this.wake?.()
    })
  }

  static async open(url: string): Promise<Connection> {
    const socket = new WebSocket(url, { headers: { authorization: "Bearer test-key" } })
    sockets.push(socket)
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject))
    return new Connection(socket)
  }

  /** Sends a client event and waits for its last frame (a terminal response event or an error). */
  async send(event: Record<string, unknown>): Promise<Frame[]> {
    this.socket.send(JSON.stringify(event))
    const out: Frame[] = []
    for (;;) {
      const frame = this.frames.shift()
      if (frame === undefined) {
        await new Promise<void>((resolve) => {
          this.wake = resolve
        })
        continue
      }
      out.push(frame)
      if (["response.completed", "response.incomplete", "response.failed", "error"].includes(frame.type)) return out
    }
  }
}

const terminal = (frames: Frame[]) => frames.at(-1) as Frame & { response: { id: string; output: Frame[] } }

describe("Responses WebSocket mode", () => {
  it("answers turn after turn on one open connection, chaining previous_response_id", async () => {
    server = await startReplayServer({
      script: scriptOf(richTurn, {
        text: "Both results seen.",
        expect: {
          toolResults: [
            { tool: "read_file", matches: "^export" },
            { tool: "execute_command", matches: "passed" },
          ],
        },
      }),
    })
    const ws = await Connection.open(server.urls.responsesWebSocket)
    const first = await ws.send({ type: "response.create", model: "gpt-5", store: false, tools, input: "Fix it." })
    expect(first.map((f) => f.type).slice(0, 2)).toEqual(["response.created", "response.in_progress"])
    const done = terminal(first)
    expect(done.type).toBe("response.completed")
    const calls = done.response.output.filter((o) => o.type === "function_call") as unknown as { call_id: string }[]
    expect(calls).toHaveLength(2)
    const second = await ws.send({
      type: "response.create",
      model: "gpt-5",
      store: false,
      tools,
      previous_response_id: done.response.id,
      input: [
        { type: "function_call_output", call_id: calls[0]!.call_id, output: "export const a = 1" },
        { type: "function_call_output", call_id: calls[1]!.call_id, output: "3 tests passed" },
      ],
    })
    expect(terminal(second).response.output).toMatchObject([
      { type: "message", content: [{ text: "Both results seen." }] },
    ])
    expect(server.requests.map((r) => [r.transport, r.outcome])).toEqual([
      ["websocket", "answered"],
      ["websocket", "answered"],
    ])
    server.assertComplete()
  })

  it("reports errors as error frames and keeps the connection open", async () => {
    server = await startReplayServer({ script: scriptOf(finalTurn, finalTurn) })
    const ws = await Connection.open(server.urls.responsesWebSocket)
    expect(await ws.send({ type: "response.cancel" })).toMatchObject([
      { type: "error", status: 400, error: { type: "invalid_request_error", code: "unknown_event" } },
    ])
    const missing = await ws.send({
      type: "response.create",
      model: "gpt-5",
      previous_response_id: "resp_gone",
      input: [],
    })
    expect(missing).toMatchObject([
      { type: "error", status: 400, error: { code: "previous_response_not_found", param: "previous_response_id" } },
    ])
    const ok = await ws.send({ type: "response.create", model: "gpt-5", store: false, input: "hi" })
    expect(terminal(ok).type).toBe("response.completed")
    // An unstored response can be continued on its own connection only.
    const other = await Connection.open(server.urls.responsesWebSocket)
    const elsewhere = await other.send({
      type: "response.create",
      model: "gpt-5",
      previous_response_id: terminal(ok).response.id,
      input: "again",
    })
    expect(elsewhere).toMatchObject([{ type: "error", error: { code: "previous_response_not_found" } }])
    const same = await ws.send({
      type: "response.create",
      model: "gpt-5",
      previous_response_id: terminal(ok).response.id,
      input: "again",
    })
    expect(terminal(same).type).toBe("response.completed")
  })

  it("warms up with generate: false without using a turn", async () => {
    server = await startReplayServer({ script: scriptOf(finalTurn) })
    const ws = await Connection.open(server.urls.responsesWebSocket)
    const warm = await ws.send({
      type: "response.create",
      model: "gpt-5",
      generate: false,
      tools,
      instructions: "Be brief.",
    })
    expect(warm.map((f) => f.type)).toEqual(["response.created", "response.completed"])
    expect(terminal(warm).response.output).toEqual([])
    expect(server.served).toBe(0)
    const turn = await ws.send({
      type: "response.create",
      model: "gpt-5",
      previous_response_id: terminal(warm).response.id,
      input: "go",
    })
    expect(terminal(turn).response.output).toMatchObject([{ content: [{ text: finalTurn.text }] }])
  })

  it("serves injected faults as error frames", async () => {
    server = await startReplayServer({
      script: scriptOf({ ...finalTurn, faults: [{ kind: "rate-limit", retryAfter: 3 }] }),
    })
    const ws = await Connection.open(server.urls.responsesWebSocket)
    expect(await ws.send({ type: "response.create", model: "gpt-5", input: "go" })).toMatchObject([
      { type: "error", status: 429, error: { code: "rate_limit_exceeded" } },
    ])
    expect(terminal(await ws.send({ type: "response.create", model: "gpt-5", input: "go" })).type).toBe(
      "response.completed",
    )
  })

  it("closes the connection halfway through a turn for a disconnect fault", async () => {
    server = await startReplayServer({ script: scriptOf({ ...finalTurn, faults: [{ kind: "disconnect" }] }) })
    const ws = await Connection.open(server.urls.responsesWebSocket)
    const closed = new Promise<number>((resolve) => ws.socket.once("close", (code) => resolve(code)))
    ws.socket.send(JSON.stringify({ type: "response.create", model: "gpt-5", input: "go" }))
    expect(await closed).toBe(1006)
    expect(server.requests.map((r) => r.outcome)).toEqual(["fault"])
    const again = await Connection.open(server.urls.responsesWebSocket)
    expect(terminal(await again.send({ type: "response.create", model: "gpt-5", input: "go" })).type).toBe(
      "response.completed",
    )
  })

  it("works with the official SDK's ResponsesWS client", async () => {
    server = await startReplayServer({ script: scriptOf(richTurn, finalTurn) })
    const client = new OpenAI({ apiKey: "test-key", baseURL: server.urls.openai })
    const rws = new ResponsesWS(client)
    const completed: { id: string; output: { type: string }[]; usage: unknown }[] = []
    const waiting: (() => void)[] = []
    rws.on("response.completed", (event) => {
      completed.push(event.response as never)
      waiting.shift()?.()
    })
    const waitFor = (n: number) =>
      new Promise<void>((resolve, reject) => {
        rws.once("error", reject)
        if (completed.length >= n) resolve()
        else waiting.push(resolve)
      })
    const firstDone = waitFor(1)
    rws.send({ type: "response.create", model: "gpt-5", tools: tools as never, input: "Fix it." })
    await firstDone
    expect(completed[0]!.output.map((o) => o.type)).toEqual(["reasoning", "message", "function_call", "function_call"])
    expect(completed[0]!.usage).toMatchObject({ input_tokens: 1320, output_tokens: 45 })
    const secondDone = waitFor(2)
    rws.send({ type: "response.create", model: "gpt-5", previous_response_id: completed[0]!.id, input: "next" })
    await secondDone
    expect(completed[1]!.output).toMatchObject([{ type: "message", content: [{ text: finalTurn.text }] }])
    rws.close()
    expect(server.requests.filter((r) => r.transport === "websocket")).toHaveLength(2)
  })
})
