/**
 * No key in any output: an upstream (a real local server) that quotes the key it was sent in its 401 body and in a
 * header. Whether the key is the gateway's own (`keyEnv`) or the client's forwarded, in same-format and translate
 * modes, streamed and not, over HTTP with the official SDKs and over the Responses WebSocket: the key is in no log
 * line, no record, no trace file and nothing the client gets. Trace files are the user's alone (0600, folders 0700).
 */

import { mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { inspect } from "node:util"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import fc from "fast-check"
import OpenAI from "openai"
import { ResponsesWS } from "openai/resources/responses/ws"
import { afterEach, describe, expect, it } from "vitest"
import { WebSocketServer } from "ws"
import { TraceStore } from "../cache/trace-store.js"
import type { GatewayConfig } from "../config/gateway.js"
import { TokenCounter } from "../history/tokens.js"
import { logJson, logLine } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { REDACTED, redactDeep, redactErrorFrame, redactText, StreamRedactor } from "./secrets.js"
import { type Gateway, startGateway } from "./server.js"
import { gatewayTracing } from "./traces.js"

const GATEWAY_KEY = "sk-gateway-own-key-0123456789abcdef"
const CLIENT_KEY = "sk-client-own-key-fedcba9876543210"

let upstream: Server | undefined
let sockets: WebSocketServer | undefined
let gateway: Gateway | undefined
let dir: string | undefined
const clients: ResponsesWS[] = []
afterEach(async () => {
  for (const c of clients.splice(0)) c.close()
  await gateway?.close(0)
  for (const c of sockets?.clients ?? []) c.terminate()
  sockets?.close()
  upstream?.closeAllConnections()
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()))
  if (dir) await rm(dir, { recursive: true, force: true })
  upstream = sockets = gateway = dir = undefined
})

/** The key a request carried, in any provider's style. */
function keyOf(headers: IncomingHttpHeaders, url: URL): string {
  const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ""))?.[1]
  return String(headers["x-api-key"] ?? bearer ?? headers["x-goog-api-key"] ?? url.searchParams.get("key") ?? "")
}

/** The 401 body each format's API answers, quoting the key (as some providers and proxies do). */
function refusal(path: string, key: string): unknown {
  if (path.startsWith("/v1/messages"))
    return { type: "error", error: { type: "authentication_error", message: `invalid x-api-key: ${key}` } }
  if (path.startsWith("/v1beta"))
    return { error: { code: 401, message: `API key not valid: ${key}`, status: "UNAUTHENTICATED" } }
  return {
    error: { message: `Incorrect API key provided: ${key}`, type: "invalid_request_error", code: "invalid_api_key" },
  }
}

/** An error event in the middle of a streamed answer, in each format's shape, quoting the key. */
function streamError(path: string, key: string): string {
  const message = `the key ${key} is over its limit`
  if (path.startsWith("/v1/messages"))
    return `event: error\ndata: ${JSON.stringify({ type: "error", error: { type: "overloaded_error", message } })}\n\n`
  if (path.startsWith("/v1beta"))
    return `data: ${JSON.stringify({ error: { code: 500, message, status: "INTERNAL" } })}\n\n`
  if (path.endsWith("/responses"))
    return `event: error\ndata: ${JSON.stringify({ type: "error", code: "server_error", message, param: null, sequence_number: 0 })}\n\n`
  return `data: ${JSON.stringify({ error: { message, type: "server_error" } })}\n\n`
}

/**
 * An upstream that refuses every request and every WebSocket response, quoting the key it got (a model whose name
 * ends in `-mid` gets a 200 stream whose error event quotes it, cut into two writes inside the key); returns the
 * keys it saw.
 */
async function echoingUpstream(): Promise<{ url: string; keys: string[] }> {
  const keys: string[] = []
  upstream = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://upstream.invalid")
    const key = keyOf(req.headers, url)
    keys.push(key)
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      const model = String((JSON.parse(Buffer.concat(chunks).toString() || "{}") as { model?: unknown }).model ?? "")
      if (`${model}${url.pathname}`.includes("-mid")) {
        res.writeHead(200, { "content-type": "text/event-stream" })
        const text = streamError(url.pathname, key)
        const cut = text.indexOf(key) + 5
        res.write(text.slice(0, cut))
        res.end(text.slice(cut))
        return
      }
      res.writeHead(401, { "content-type": "application/json", "x-echo": `key=${key}` })
      res.end(JSON.stringify(refusal(url.pathname, key)))
    })
  })
  sockets = new WebSocketServer({ server: upstream, path: "/v1/responses" })
  sockets.on("connection", (socket, req) => {
    const key = keyOf(req.headers, new URL(req.url ?? "/", "http://upstream.invalid"))
    keys.push(key)
    socket.on("message", () =>
      socket.send(
        JSON.stringify({
          type: "error",
          status: 401,
          error: { type: "invalid_request_error", code: "invalid_api_key", message: `Incorrect API key: ${key}` },
        }),
      ),
    )
  })
  await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", () => resolve()))
  return { url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, keys }
}

const FORMATS = {
  anthropic: { provider: "anthropic", path: "" },
  "openai-chat": { provider: "openai", path: "/v1" },
  "openai-responses": { provider: "openai", path: "/v1" },
  gemini: { provider: "gemini", path: "" },
} as const
type Format = keyof typeof FORMATS
const KEYINGS = ["env", "fwd"] as const

/**
 * Upstreams of every format, keyed by the gateway (`env`) or by the client's forwarded key (`fwd`); model
 * `<format>-same-<keying>` goes to its own format unchanged, `<format>-tr-<keying>` is translated to another one.
 */
function config(url: string): GatewayConfig {
  const upstreams: NonNullable<GatewayConfig["upstreams"]> = {}
  const routes: NonNullable<GatewayConfig["routes"]> = []
  for (const [format, { provider, path }] of Object.entries(FORMATS))
    for (const keying of KEYINGS) {
      upstreams[`${format}-${keying}`] = {
        provider,
        format: format as Format,
        baseUrl: `${url}${path}`,
        ...(keying === "env" ? { keyEnv: "UPSTREAM_KEY" } : {}),
      }
      const other = format === "anthropic" ? "openai-chat" : "anthropic"
      routes.push(
        { match: `${format}-same-${keying}*`, upstream: `${format}-${keying}` },
        { match: `${format}-tr-${keying}*`, upstream: `${other}-${keying}`, mode: "translate" },
      )
    }
  return { port: 0, upstreams, routes }
}

/** Starts the gateway with traces in a temporary folder; collects records, log lines and trace writes. */
async function start(url: string) {
  dir = await mkdtemp(join(tmpdir(), "pl-redaction-"))
  const traceDir = join(dir, "traces")
  const store = new TraceStore(traceDir, { counter: await TokenCounter.create() })
  const failures: Error[] = []
  const tracing = gatewayTracing(store, (error) => failures.push(error))
  const records: GatewayRecord[] = []
  const writes: Promise<void>[] = []
  gateway = await startGateway({
    config: config(url),
    env: { UPSTREAM_KEY: GATEWAY_KEY },
    onRequest: (record) => {
      records.push(record)
      writes.push(tracing.onRequest(record))
    },
    answerHeaders: tracing.answerHeaders,
  })
  return { gateway, records, writes, traceDir, failures }
}

/** Every file below `root` with its text, and every folder. */
async function walk(root: string): Promise<{ files: Map<string, string>; folders: string[] }> {
  const files = new Map<string, string>()
  const folders = [root]
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isDirectory()) folders.push(path)
    else files.set(path, await readFile(path, "utf8"))
  }
  return { files, folders }
}

/** What a client got from a call that failed: the whole error, its body and headers included. */
const caught = (call: () => Promise<unknown>) =>
  call().then(
    (ok) => `unexpected success ${inspect(ok, { depth: 20 })}`,
    (error: unknown) => inspect(error, { depth: 20, maxStringLength: null }),
  )

/** Calls the gateway with each format's official SDK, streamed and not, for one model name. */
function ask(g: Gateway, format: Format, model: string, stream: boolean): Promise<string> {
  const messages = [{ role: "user" as const, content: "hi" }]
  switch (format) {
    case "anthropic": {
      const client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: g.urls.anthropic, maxRetries: 0 })
      return caught(async () => {
        const answer = await client.messages.create({ model, max_tokens: 5, messages, stream })
        if (stream) for await (const _ of answer as AsyncIterable<unknown>);
      })
    }
    case "openai-chat": {
      const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: g.urls.openai, maxRetries: 0 })
      return caught(async () => {
        const answer = await client.chat.completions.create({ model, messages, stream })
        if (stream) for await (const _ of answer as AsyncIterable<unknown>);
      })
    }
    case "openai-responses": {
      const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: g.urls.openai, maxRetries: 0 })
      return caught(async () => {
        const answer = await client.responses.create({ model, input: "hi", stream })
        if (stream) for await (const _ of answer as AsyncIterable<unknown>);
      })
    }
    case "gemini": {
      const client = new GoogleGenAI({ apiKey: CLIENT_KEY, httpOptions: { baseUrl: g.urls.gemini } })
      return caught(async () => {
        if (!stream) return client.models.generateContent({ model, contents: "hi" })
        for await (const _ of await client.models.generateContentStream({ model, contents: "hi" }));
      })
    }
  }
}

/** One response.create over the Responses WebSocket; resolves with every raw message up to the error event. */
async function askSocket(g: Gateway, model: string): Promise<string[]> {
  const socket = new ResponsesWS(new OpenAI({ apiKey: CLIENT_KEY, baseURL: g.urls.openai, maxRetries: 0 }))
  clients.push(socket)
  socket.on("error", () => {})
  const frames: string[] = []
  socket.socket.on("message", (data: unknown) => frames.push(String(data)))
  await new Promise<void>((resolve) => socket.socket.on("open", () => resolve()))
  await new Promise<void>((resolve) => {
    socket.on("event", (e: unknown) => {
      const type = (e as { type?: string }).type
      if (type === "error" || type === "response.failed" || type === "response.completed") resolve()
    })
    socket.send({ type: "response.create", model, input: "hi" } as never)
  })
  return frames
}

describe("an upstream that quotes the key in its error", () => {
  it("gets it into no log line, record, trace file or client answer, in every mode and transport", async () => {
    const { url, keys } = await echoingUpstream()
    const { gateway, records, writes, traceDir, failures } = await start(url)
    const told: string[] = []
    for (const format of Object.keys(FORMATS) as Format[])
      for (const mode of ["same", "tr"])
        for (const keying of KEYINGS)
          for (const stream of [false, true])
            told.push(await ask(gateway, format, `${format}-${mode}-${keying}`, stream))
    for (const mode of ["same", "tr"])
      for (const keying of KEYINGS) told.push(...(await askSocket(gateway, `openai-responses-${mode}-${keying}`)))
    // An error event inside a streamed answer that quotes the gateway's own key: the client must not get it either
    // (a client's own key in its own answer is the client's, as the model wrote it).
    for (const format of Object.keys(FORMATS) as Format[])
      for (const mode of ["same", "tr"]) told.push(await ask(gateway, format, `${format}-${mode}-env-mid`, true))
    await Promise.all(writes)
    expect(failures).toEqual([])

    // The upstream did get both keys (so each answer quoted one), and the clients were told it was refused.
    expect(new Set(keys)).toEqual(new Set([GATEWAY_KEY, CLIENT_KEY]))
    expect(records).toHaveLength(44)
    expect(records.every((r) => r.error !== undefined)).toBe(true)
    expect(told.join("\n")).toContain(REDACTED)
    const logs = records.flatMap((r) => [logLine(r), logJson(r)])
    const { files, folders } = await walk(traceDir)
    expect(files.size).toBeGreaterThan(0)
    const outputs = { told, logs, records: records.map((r) => JSON.stringify(r)), traces: [...files.values()] }
    for (const [where, texts] of Object.entries(outputs))
      for (const key of [GATEWAY_KEY, CLIENT_KEY])
        expect(texts.filter((t) => t.includes(key)).length, `${where} quoting ${key}`).toBe(0)

    // Trace files are the user's alone.
    for (const file of files.keys()) expect(((await stat(file)).mode & 0o777).toString(8), file).toBe("600")
    for (const folder of folders) expect(((await stat(folder)).mode & 0o777).toString(8), folder).toBe("700")
  })
})

describe("redaction itself", () => {
  // Keys as providers write them; one inside the placeholder's own word could never be told apart from it.
  const secret = fc.stringMatching(/^[A-Za-z0-9_-]{8,24}$/).filter((s) => !REDACTED.includes(s))

  it("leaves no secret in any JSON value, and returns a value without one as it is", () => {
    fc.assert(
      fc.property(fc.jsonValue(), secret, fc.nat(), (value, key, at) => {
        const text = JSON.stringify(value) ?? ""
        if (!text.includes(key)) expect(redactDeep(value, [key])).toBe(value)
        // The key planted in a string, as a name and in a list: none of it is left.
        const cut = at % (text.length + 1)
        const planted = { value, note: `${text.slice(0, cut)}${key}${text.slice(cut)}`, [key]: [key] }
        const out = JSON.stringify(redactDeep(planted, [key]))
        expect(out.includes(key)).toBe(false)
        expect(out).toContain(REDACTED)
      }),
    )
  })

  it("redacts a stream cut anywhere exactly as it redacts the whole text", () => {
    const text = fc.array(fc.oneof(fc.string(), fc.constant("KEY")), { maxLength: 12 })
    fc.assert(
      fc.property(secret, text, fc.array(fc.nat(), { maxLength: 8 }), (key, parts, cuts) => {
        const whole = Buffer.from(parts.map((p) => (p === "KEY" ? key : p)).join(""))
        const redactor = new StreamRedactor([key])
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b)
        const out: Buffer[] = []
        let from = 0
        for (const to of [...at, whole.length]) {
          out.push(redactor.push(whole.subarray(from, to)))
          from = to
        }
        out.push(redactor.end())
        expect(Buffer.concat(out).toString()).toBe(redactText(whole.toString(), [key]))
      }),
    )
  })

  it("redacts an error frame but relays an answer's frame as the model wrote it", () => {
    fc.assert(
      fc.property(secret, (key) => {
        const error = JSON.stringify({ type: "error", error: { message: `bad key ${key}` } })
        const text = JSON.stringify({ type: "response.output_text.delta", delta: `you said ${key}` })
        expect(redactErrorFrame(error, [key])).not.toContain(key)
        expect(redactErrorFrame(text, [key])).toBe(text)
      }),
    )
  })
})
