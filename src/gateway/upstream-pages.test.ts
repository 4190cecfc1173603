/**
 * An upstream that answers a page instead of its API (a proxy's HTML error page with scripts, a load balancer's
 * plain text): every client is told the upstream's status and a short clean message, forwarded or translated,
 * streamed or whole, over HTTP or the Responses WebSocket; never the page's markup or script.
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import WebSocket from "ws"
import type { GatewayRecord } from "./record.js"
import { type Gateway, startGateway } from "./server.js"

const PAGE = `<!DOCTYPE html><html><head><title>502 Bad Gateway | Edge</title>
<script>window.__edge = { session: "SECRET_SESSION" }; document.write("<p>hi</p>")</script>
<style>h1 { color: red }</style></head>
<body><h1>502 Bad Gateway</h1><script src="/challenge.js"></script></body></html>`

let gateway: Gateway | undefined
let upstream: Server | undefined
afterEach(async () => {
  await gateway?.close(0)
  upstream?.closeAllConnections()
  await new Promise<void>((resolve) => (upstream ? upstream.close(() => resolve()) : resolve()))
  gateway = upstream = undefined
})

/** An upstream answering every request with `status`, `type` and `body`; a gateway that forwards or translates to it. */
async function start(status: number, type: string, body: string, headers: Record<string, string> = {}) {
  upstream = createServer((req, res) => {
    req.resume()
    res.writeHead(status, { "content-type": type, ...headers })
    res.end(body)
  })
  await new Promise<void>((resolve) => upstream!.listen(0, "127.0.0.1", () => resolve()))
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  const records: GatewayRecord[] = []
  gateway = await startGateway({
    config: {
      port: 0,
      upstreams: { edge: { provider: "anthropic", baseUrl: url, keyEnv: "UP_KEY" } },
      // Anthropic clients are forwarded; every other client API is translated to the Anthropic upstream.
      routes: [{ match: "*", upstream: "edge" }],
    },
    env: { UP_KEY: "sk-up" },
    onRequest: (r) => records.push(r),
  })
  return { gateway, records }
}

/** What a client was told: its status and message. */
type Told = { status: number | undefined; message: string }

const told = (error: unknown): Told => {
  const e = error as { status?: number; message: string; code?: number }
  return { status: e.status ?? e.code, message: e.message }
}

/** One request through each client API and mode; what each client was told. */
async function askEveryClient(gw: Gateway): Promise<Record<string, Told>> {
  const anthropic = new Anthropic({ apiKey: "k", baseURL: gw.urls.anthropic, maxRetries: 0 })
  const openai = new OpenAI({ apiKey: "k", baseURL: gw.urls.openai, maxRetries: 0 })
  const gemini = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: gw.urls.gemini } })
  const messages = [{ role: "user" as const, content: "hi" }]
  const out: Record<string, Told> = {}
  const ask = async (name: string, call: () => Promise<unknown>) => {
    out[name] = await call().then(
      () => ({ status: 200, message: "" }),
      (error: unknown) => told(error),
    )
  }
  await ask("anthropic forwarded", () => anthropic.messages.create({ model: "claude-x", max_tokens: 5, messages }))
  await ask("anthropic forwarded, streamed", () =>
    anthropic.messages.stream({ model: "claude-x", max_tokens: 5, messages }).finalMessage(),
  )
  await ask("chat translated", () => openai.chat.completions.create({ model: "gpt-x", messages }))
  await ask("chat translated, streamed", async () => {
    for await (const _ of await openai.chat.completions.create({ model: "gpt-x", messages, stream: true })) {
    }
  })
  await ask("responses translated", () => openai.responses.create({ model: "gpt-x", input: "hi" }))
  await ask("gemini translated", () => gemini.models.generateContent({ model: "gemini-x", contents: "hi" }))
  return out
}

describe("an upstream's page instead of its API", () => {
  it("tells every client the status and the page's title, never its markup or script", async () => {
    const { gateway: gw, records } = await start(502, "text/html; charset=utf-8", PAGE)
    const answers = await askEveryClient(gw)
    for (const [client, answer] of Object.entries(answers)) {
      expect([client, answer.status]).toEqual([client, 502])
      expect(answer.message, client).toMatch(
        /the upstream edge answered HTTP 502 with text\/html, not the API's (JSON|stream): 502 Bad Gateway \| Edge/,
      )
      expect(answer.message, client).not.toMatch(/SECRET_SESSION|<|script|color/)
    }
    for (const record of records) expect(record.error?.message).not.toMatch(/SECRET_SESSION|</)
  })

  it("keeps the wait a page's retry-after names", async () => {
    const { gateway: gw } = await start(503, "text/html", PAGE.replace(/502/g, "503"), { "retry-after": "7" })
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer k" },
      body: JSON.stringify({ model: "gpt-x", messages: [{ role: "user", content: "hi" }] }),
    })
    expect([res.status, res.headers.get("retry-after")]).toEqual([503, "7"])
  })

  it("answers a 2xx page that is not the API's 502, and a plain-text error page with its words", async () => {
    const { gateway: gw } = await start(200, "text/html", PAGE)
    const ok = await askEveryClient(gw)
    expect(Object.values(ok).map((a) => a.status)).toEqual([502, 502, 502, 502, 502, 502])
    await gateway!.close(0)
    upstream!.closeAllConnections()
    await new Promise<void>((resolve) => upstream!.close(() => resolve()))
    const { gateway: plain } = await start(504, "text/plain", "upstream request timeout\n")
    const answers = await askEveryClient(plain)
    expect(answers["anthropic forwarded"]).toEqual({
      status: 504,
      message: expect.stringContaining(
        "answered HTTP 504 with text/plain, not the API's JSON: upstream request timeout",
      ),
    })
  })

  it("tells a translated Responses WebSocket client in its error event", async () => {
    const { gateway: gw } = await start(502, "text/html", PAGE)
    const socket = new WebSocket(gw.urls.responsesWebSocket, { headers: { authorization: "Bearer k" } })
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject))
    const frame = new Promise<Record<string, unknown>>((resolve) =>
      socket.once("message", (d) => resolve(JSON.parse(String(d)))),
    )
    socket.send(JSON.stringify({ type: "response.create", model: "gpt-x", input: "hi" }))
    const event = await frame
    socket.close()
    expect(event).toMatchObject({
      type: "error",
      status: 502,
      error: {
        message: expect.stringMatching(
          /answered HTTP 502 with text\/html, not the API's stream: 502 Bad Gateway \| Edge/,
        ),
      },
    })
    expect(JSON.stringify(event)).not.toMatch(/SECRET_SESSION|script/)
  })
})
