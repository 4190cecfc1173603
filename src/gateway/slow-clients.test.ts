/**
 * Clients that send slowly, or too much, cannot hold the gateway: a socket that sends nothing or trickles its
 * headers is closed after `headersTimeoutMs`, a trickled body is answered 408 in the client's shape after
 * `bodyTimeoutMs`, a body over `bodyLimit` gets its 413 even when the client sends all of it before reading, and
 * none of this cuts a streamed answer that runs longer than both timeouts. The timeouts are short here so the
 * tests stay quick; what is asserted is the outcome, never a duration.
 */
import { readFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { connect, type Socket } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import Anthropic from "@anthropic-ai/sdk"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { gatewaySchema } from "../config/gateway.js"
import { type Gateway, startGateway } from "./server.js"
import { DEFAULT_BODY_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS, resolveSettings } from "./settings.js"

const here = dirname(fileURLToPath(import.meta.url))
const TEXT_STREAM = readFileSync(join(here, "../../test/fixtures/streams/anthropic/anthropic-text.chunks.txt"), "utf8")
  .trim()
  .split("\n")
  .map((line) => `event: ${(JSON.parse(line) as { type: string }).type}\ndata: ${line}\n\n`)

/** The short timeouts of these tests, in ms. */
const SHORT = 150

let gateway: Gateway | undefined
let upstream: Server | undefined
const sockets: Socket[] = []
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy()
  await gateway?.close(0)
  upstream?.closeAllConnections()
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()))
  gateway = upstream = undefined
})

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * An Anthropic upstream that sends the recorded text stream's first event, then holds the rest until `release`
 * (a stream that runs as long as the test wants) and answers any non-streamed request whole.
 */
async function slowUpstream(): Promise<{ url: string; release: () => void }> {
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  upstream = createServer((req, res) => {
    req.resume()
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(TEXT_STREAM[0])
      await released
      for (const event of TEXT_STREAM.slice(1)) res.write(event)
      res.end()
    })
  })
  await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", () => resolve()))
  const address = upstream.address() as { port: number }
  return { url: `http://127.0.0.1:${address.port}`, release }
}

async function start(upstreamUrl = "http://127.0.0.1:9", extra: Record<string, unknown> = {}) {
  gateway = await startGateway({
    config: {
      port: 0,
      headersTimeoutMs: SHORT,
      bodyTimeoutMs: SHORT,
      bodyLimit: 64 * 1024,
      upstreams: {
        claude: { provider: "anthropic", baseUrl: upstreamUrl, keyEnv: "UP_KEY" },
      },
      routes: [
        { match: "claude-*", upstream: "claude" },
        { match: "gpt-*", upstream: "claude", mode: "translate" },
      ],
      ...extra,
    },
    env: { UP_KEY: "sk-up" },
  })
  return gateway
}

/** A raw connection to the gateway, with everything it receives and a promise of its close. */
function open(gw: Gateway) {
  const socket = connect(Number(new URL(gw.url).port), "127.0.0.1")
  sockets.push(socket)
  const state = { received: "", error: undefined as string | undefined }
  socket.on("data", (d: Buffer) => {
    state.received += d.toString("latin1")
  })
  socket.on("error", (e: NodeJS.ErrnoException) => {
    state.error = e.code ?? e.message
  })
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
  const connected = new Promise<void>((resolve) => socket.once("connect", () => resolve()))
  return { socket, state, closed, connected }
}

/** Writes `bytes` in pieces, waiting for the socket to drain; resolves false when a write failed. */
async function writeAll(socket: Socket, pieces: Iterable<Buffer | string>): Promise<boolean> {
  for (const piece of pieces) {
    if (socket.destroyed) return false
    if (!socket.write(piece))
      await new Promise<void>((resolve) => {
        socket.once("drain", resolve)
        socket.once("close", resolve)
      })
  }
  return !socket.destroyed
}

/** The JSON body of the first HTTP answer in `raw` (chunked or with a length). */
function firstAnswer(raw: string): { status: number; body: unknown } {
  const [head = "", rest = ""] = raw.split("\r\n\r\n", 2) as [string, string]
  const status = Number(head.slice(9, 12))
  const body = /transfer-encoding: chunked/i.test(head) ? rest.replace(/^[0-9a-f]+\r\n/i, "").split("\r\n")[0] : rest
  return { status, body: body ? JSON.parse(Buffer.from(body ?? "", "latin1").toString("utf8")) : undefined }
}

describe("defaults and settings", () => {
  it("follows Node's own timeouts unless the config sets them; a timeout is a positive whole number", () => {
    const defaults = resolveSettings(undefined, {})
    expect([defaults.headersTimeoutMs, defaults.bodyTimeoutMs]).toEqual([60_000, 300_000])
    expect([DEFAULT_HEADERS_TIMEOUT_MS, DEFAULT_BODY_TIMEOUT_MS]).toEqual([60_000, 300_000])
    const set = resolveSettings({ headersTimeoutMs: 5_000, bodyTimeoutMs: 20_000 }, {})
    expect([set.headersTimeoutMs, set.bodyTimeoutMs]).toEqual([5_000, 20_000])
    for (const bad of [0, -1, 1.5, "60"])
      expect(gatewaySchema.safeParse({ headersTimeoutMs: bad }).success, String(bad)).toBe(false)
  })
})

describe("slow clients", () => {
  it("closes a socket that sends nothing", async () => {
    const gw = await start()
    const { closed, state } = open(gw)
    await closed
    expect(state.received).toMatch(/^HTTP\/1\.1 408 /)
  })

  it("closes a socket that trickles header lines, answering 408", async () => {
    const gw = await start()
    const { socket, closed, state, connected } = open(gw)
    await connected
    socket.write("POST /v1/messages HTTP/1.1\r\nhost: x\r\n")
    let lines = 0
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(`x-trickle-${lines++}: y\r\n`)
    }, SHORT / 5)
    await closed
    clearInterval(trickle)
    expect(state.received).toMatch(/^HTTP\/1\.1 408 /)
  })

  it("answers a trickled body 408 in the client's shape and closes the connection", async () => {
    const gw = await start()
    const { socket, closed, state, connected } = open(gw)
    await connected
    socket.write(
      "POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{",
    )
    const trickle = setInterval(() => {
      if (!socket.destroyed) socket.write(" ")
    }, SHORT / 5)
    await closed
    clearInterval(trickle)
    const answer = firstAnswer(state.received)
    expect(answer.status).toBe(408)
    expect(answer.body).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: expect.stringMatching(/did not arrive within 150 ms.*bodyTimeoutMs/),
      },
    })
    expect(state.received).toMatch(/\r\nconnection: close\r\n/i)
  })

  it("lets a streamed answer run longer than both timeouts, forwarded and translated", async () => {
    const slow = await slowUpstream()
    const gw = await start(slow.url)
    const anthropic = new Anthropic({ apiKey: "k", baseURL: gw.urls.anthropic, maxRetries: 0 })
    const openai = new OpenAI({ apiKey: "k", baseURL: gw.urls.openai, maxRetries: 0 })
    const forwarded = anthropic.messages
      .stream({ model: "claude-x", max_tokens: 50, messages: [{ role: "user", content: "hi" }] })
      .finalMessage()
    const translated = (async () => {
      let text = ""
      const stream = await openai.chat.completions.create({
        model: "gpt-x",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      })
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? ""
      return text
    })()
    // Both answers have begun and now stay open for several times the timeouts together.
    await wait(SHORT * 6)
    slow.release()
    const expected =
      "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I can help you with?"
    expect((await forwarded).content).toEqual([{ type: "text", text: expected }])
    expect(await translated).toBe(expected)
  })
})

describe("a body in pieces", () => {
  it("is read whole, with a length and chunked, and the connection serves the next request", async () => {
    const received: string[] = []
    upstream = createServer((req, res) => {
      let text = ""
      req.setEncoding("utf8")
      req.on("data", (chunk: string) => {
        text += chunk
      })
      req.on("end", () => {
        received.push(text)
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ id: "m", type: "message", role: "assistant", content: [], usage: {} }))
      })
    })
    await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", () => resolve()))
    const gw = await start(`http://127.0.0.1:${(upstream.address() as { port: number }).port}`, {
      headersTimeoutMs: 60_000,
      bodyTimeoutMs: 60_000,
    })
    const body = JSON.stringify({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "héllo" }] })
    const bytes = Buffer.from(body)
    const { socket, state, connected } = open(gw)
    await connected
    const answers = () => state.received.split("HTTP/1.1 ").length - 1
    const until = async (n: number) => {
      while (answers() < n) await wait(5)
    }
    const head = (framing: string) =>
      `POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`
    // With its length, in three pieces (one cut inside a character), the headers apart from the body.
    socket.write(head(`content-length: ${bytes.length}`))
    for (const piece of [bytes.subarray(0, 7), bytes.subarray(7, 62), bytes.subarray(62)]) {
      await wait(10)
      socket.write(piece)
    }
    await until(1)
    // Chunked, on the same connection.
    socket.write(head("transfer-encoding: chunked"))
    for (const piece of [bytes.subarray(0, 30), bytes.subarray(30)]) {
      await wait(10)
      socket.write(Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]))
    }
    socket.write("0\r\n\r\n")
    await until(2)
    expect(state.received.match(/HTTP\/1\.1 (\d+)/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200"])
    expect(received).toEqual([body, body])
  })
})

describe("a body over the limit", () => {
  // Timeouts far longer than sending megabytes takes, however busy the machine: these tests are about the 413.
  const patient = { headersTimeoutMs: 60_000, bodyTimeoutMs: 60_000 }
  const head = (framing: string) =>
    `POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${framing}\r\n\r\n`

  it("gets its 413 even when the client sends all of it, chunked, before reading; the connection stays usable", async () => {
    const gw = await start(undefined, patient)
    const { socket, state, connected } = open(gw)
    await connected
    const piece = Buffer.alloc(16 * 1024, 0x61)
    const chunks = function* () {
      yield head("transfer-encoding: chunked")
      for (let i = 0; i < 64; i++) yield Buffer.concat([Buffer.from("4000\r\n"), piece, Buffer.from("\r\n")])
      yield "0\r\n\r\n"
    }
    expect(await writeAll(socket, chunks())).toBe(true)
    // The same connection carries the next request: it was not reset.
    socket.write("GET /v1/models HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
    await new Promise<void>((resolve) => socket.once("close", () => resolve()))
    expect(state.error).toBeUndefined()
    const answer = firstAnswer(state.received)
    expect(answer.status).toBe(413)
    expect(answer.body).toEqual({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "the request body is larger than the gateway's limit of 65536 bytes",
      },
    })
    expect(state.received.match(/HTTP\/1\.1 \d{3}/g)).toEqual(["HTTP/1.1 413", "HTTP/1.1 200"])
  })

  it("gets its 413 when its declared length is over the limit and the client sends it all the same", async () => {
    const gw = await start(undefined, patient)
    const { socket, state, connected } = open(gw)
    await connected
    const size = 16 * 1024 * 1024
    const pieces = function* () {
      yield head(`content-length: ${size}`)
      for (let i = 0; i < size / 16_384; i++) yield Buffer.alloc(16_384, 0x61)
    }
    expect(await writeAll(socket, pieces())).toBe(true)
    socket.end()
    await new Promise<void>((resolve) => socket.once("close", () => resolve()))
    expect(state.error).toBeUndefined()
    expect(firstAnswer(state.received).status).toBe(413)
  })

  it("gets its 413 through an official SDK, whose body has a length", async () => {
    const gw = await start(undefined, patient)
    const anthropic = new Anthropic({ apiKey: "k", baseURL: gw.urls.anthropic, maxRetries: 0 })
    const error = await anthropic.messages
      .create({ model: "claude-x", max_tokens: 5, messages: [{ role: "user", content: "x".repeat(200_000) }] })
      .then(
        () => ({ status: 200, message: "" }),
        (e: unknown) => e as InstanceType<typeof Anthropic.APIError>,
      )
    expect([error.status, error.message]).toEqual([413, expect.stringMatching(/larger than the gateway's limit/)])
  })
})
