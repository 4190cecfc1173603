import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { ApiError, type GenerateContentResponse, GoogleGenAI } from "@google/genai"
import { afterEach, describe, expect, it } from "vitest"
import type { StreamEvent } from "../stream.js"
import type { ErrorInput } from "../types.js"
import { geminiFormat } from "./index.js"

/**
 * The official SDK as the client of the serving half: a real local HTTP server answers with the bytes of the
 * format module's encoders (written piece by piece as the encoder returns them), and the SDK reads them.
 */

const events: StreamEvent[] = [
  { type: "start", id: "upstream", model: "claude-sonnet-4-6" },
  { type: "thinking", delta: "Two files ", index: 0 },
  { type: "thinking", delta: "to read.", index: 0, signature: "c2lnLXRob3VnaHQ=" },
  { type: "text", delta: "Reading ", index: 1 },
  { type: "text", delta: "both.", index: 1 },
  { type: "tool_call_start", id: "toolu_01", name: "read_file" },
  { type: "tool_call_delta", id: "toolu_01", argsDelta: '{"path":' },
  { type: "tool_call_delta", id: "toolu_01", argsDelta: '"a.ts"}' },
  { type: "tool_call_end", id: "toolu_01", input: { path: "a.ts" }, signature: "c2lnLWNhbGw=" },
  { type: "tool_call_start", id: "toolu_02", name: "read_file" },
  { type: "tool_call_delta", id: "toolu_02", argsDelta: '{"path":"b.ts"}' },
  { type: "tool_call_end", id: "toolu_02", input: { path: "b.ts" } },
  { type: "usage", input: 120, output: 40, cacheRead: 1000, cacheWrite: 0, reasoning: 12 },
  { type: "stop", reason: "tool_use" },
]

interface Served {
  server: Server
  url: string
  requests: { path: string; body: unknown }[]
}

let served: Served | undefined
afterEach(async () => {
  await new Promise((resolve) => served?.server.close(resolve) ?? resolve(undefined))
  served = undefined
})

/** A server answering every Gemini call with `events`, or with `error` when given. */
async function serve(error?: ErrorInput): Promise<Served> {
  const requests: Served["requests"] = []
  const server = createServer((req, res) => {
    let text = ""
    req.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
    })
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost")
      const match = /^\/v1beta\/models\/([^:]+):(\w+)$/.exec(url.pathname)
      const body = JSON.parse(text) as unknown
      requests.push({ path: `${url.pathname}${url.search}`, body })
      if (error) {
        const answer = geminiFormat.encodeError(error)
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers })
        res.end(JSON.stringify(answer.body))
        return
      }
      const route = { model: match?.[1], stream: match?.[2] === "streamGenerateContent" }
      const model = geminiFormat.decodeRequest(body, route).model
      if (!route.stream) {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify(geminiFormat.encodeResponse(events, { model, id: "resp-7" })))
        return
      }
      const sse = url.searchParams.get("alt") === "sse"
      res.writeHead(200, { "content-type": sse ? "text/event-stream" : "application/json" })
      const encoder = geminiFormat.createStreamEncoder({ model, id: "resp-7", sse })
      for (const event of events) {
        const piece = encoder.push(event)
        if (piece !== "") res.write(piece)
      }
      res.end(encoder.end())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  served = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
  return served
}

const client = (url: string) => new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: url } })

const config = {
  systemInstruction: "You are a coding agent.",
  tools: [
    {
      functionDeclarations: [
        {
          name: "read_file",
          description: "Read a file",
          parametersJsonSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
        },
      ],
    },
    { googleSearch: {} },
  ],
  thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 },
  maxOutputTokens: 4096,
  temperature: 0.3,
  responseMimeType: "text/plain",
}

function checkFinal(parts: NonNullable<GenerateContentResponse["candidates"]>[number]["content"]) {
  const all = parts?.parts ?? []
  expect(
    all
      .filter((p) => p.thought)
      .map((p) => p.text)
      .join(""),
  ).toBe("Two files to read.")
  expect(
    all
      .filter((p) => !p.thought && p.text)
      .map((p) => p.text)
      .join(""),
  ).toBe("Reading both.")
}

describe("Gemini serving half with the official SDK (@google/genai)", () => {
  it("generateContentStream reads the encoder's SSE stream: thoughts, text, calls with ids and signatures, usage", async () => {
    const { url, requests } = await serve()
    const chunks: GenerateContentResponse[] = []
    const stream = await client(url).models.generateContentStream({
      model: "gemini-2.5-pro",
      contents: "Read a.ts and b.ts.",
      config,
    })
    for await (const chunk of stream) chunks.push(chunk)
    checkFinal({ parts: chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? []) })
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([
      { id: "toolu_01", name: "read_file", args: { path: "a.ts" } },
      { id: "toolu_02", name: "read_file", args: { path: "b.ts" } },
    ])
    const parts = chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
    expect(parts.find((p) => p.functionCall?.id === "toolu_01")?.thoughtSignature).toBe("c2lnLWNhbGw=")
    const last = chunks.at(-1)!
    expect(last.candidates?.[0]?.finishReason).toBe("STOP")
    expect(last.responseId).toBe("resp-7")
    expect(last.modelVersion).toBe("gemini-2.5-pro")
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 1120,
      cachedContentTokenCount: 1000,
      candidatesTokenCount: 28,
      thoughtsTokenCount: 12,
      totalTokenCount: 1160,
    })
    // The request the SDK sent, read by the request decoder.
    expect(requests[0]!.path).toBe("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse")
    const decoded = geminiFormat.decodeRequest(requests[0]!.body, { model: "gemini-2.5-pro", stream: true })
    expect(decoded.prompt.text).toBe("You are a coding agent.")
    expect(decoded.prompt.tools.map((t) => t.parameters)).toEqual([
      config.tools[0]!.functionDeclarations![0]!.parametersJsonSchema,
    ])
    expect(decoded.messages).toEqual([
      { id: "m1", role: "user", ts: 0, content: [{ type: "text", text: "Read a.ts and b.ts." }] },
    ])
    expect(decoded.options).toEqual({
      stream: true,
      maxTokens: 4096,
      temperature: 0.3,
      thinking: { budgetTokens: 2048 },
    })
    // `text/plain` is the default answer form: read, and nothing to carry.
    expect(decoded.unmodeled).toEqual(["tools[1].googleSearch"])
  })

  it("generateContent reads the whole answer, parts merged", async () => {
    const { url } = await serve()
    const response = await client(url).models.generateContent({ model: "gemini-3-pro-preview", contents: "x", config })
    checkFinal(response.candidates?.[0]?.content)
    expect(response.candidates?.[0]?.content?.parts?.filter((p) => p.text && !p.thought)).toHaveLength(1)
    expect(response.functionCalls?.map((c) => c.id)).toEqual(["toolu_01", "toolu_02"])
    expect(response.usageMetadata?.totalTokenCount).toBe(1160)
  })

  it("streams one JSON array without alt=sse, which parses whole and chunk by chunk", async () => {
    const { url } = await serve()
    const res = await fetch(`${url}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "x" }] }] }),
    })
    const text = await res.text()
    expect(text.startsWith("[{")).toBe(true)
    const chunks = JSON.parse(text) as GenerateContentResponse[]
    expect(text.split(",\r\n").length).toBe(chunks.length)
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP")
  })

  describe("an answer that fails mid-stream raises in the SDK, never ends as if whole", () => {
    const cut: StreamEvent[] = [
      ...events.slice(0, 5),
      { type: "error", kind: "network", message: "the upstream connection failed mid-answer" },
      { type: "stop", reason: "error" },
    ]
    /** The SSE text of the cut answer, split before the bare error body that ends it. */
    const answer = () => {
      const encoder = geminiFormat.createStreamEncoder({ model: "gemini-2.5-pro", id: "resp-7", sse: true })
      const text = cut.map((e) => encoder.push(e)).join("") + encoder.end()
      const bare = text.slice(text.lastIndexOf("\r\n\r\n") + 4)
      return { before: text.slice(0, text.length - bare.length), bare }
    }
    /** Serves the cut answer; `hold` keeps the bare body back until the promise it returns resolves. */
    async function serveCut(hold?: Promise<void>): Promise<string> {
      const server = createServer((req, res) => {
        req.resume()
        req.on("end", () => {
          const { before, bare } = answer()
          res.writeHead(200, { "content-type": "text/event-stream" })
          if (!hold) return void res.end(before + bare)
          res.write(before)
          void hold.then(() => res.end(bare))
        })
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      served = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: [] }
      return served.url
    }
    /** Reads the stream; calls `onEmpty` at the first chunk with no candidates (the data: error event). */
    async function read(url: string, onEmpty?: () => void): Promise<{ text: string; failure: unknown }> {
      let text = ""
      try {
        const stream = await client(url).models.generateContentStream({ model: "gemini-2.5-pro", contents: "x" })
        for await (const chunk of stream) {
          if (!chunk.candidates) onEmpty?.()
          text += chunk.candidates?.[0]?.content?.parts?.map((p) => (p.thought ? "" : (p.text ?? ""))).join("") ?? ""
        }
      } catch (failure) {
        return { text, failure }
      }
      return { text, failure: undefined }
    }

    it("the bare body read on its own: an ApiError with the error's status", async () => {
      let release = () => {}
      const url = await serveCut(new Promise<void>((resolve) => (release = resolve)))
      const { text, failure } = await read(url, release)
      expect(failure).toBeInstanceOf(ApiError)
      expect((failure as ApiError).status).toBe(503)
      expect((failure as ApiError).message).toContain("the upstream connection failed mid-answer")
      expect(text).toBe("Reading both.")
    })

    it("the whole answer in one read: the SDK raises on the unterminated body it is left with", async () => {
      const { failure } = await read(await serveCut())
      expect(failure).toBeInstanceOf(Error)
      const known =
        failure instanceof ApiError
          ? failure.status === 503
          : /Incomplete JSON segment at the end/.test((failure as Error).message)
      expect(known).toBe(true)
    })
  })

  it("a rate limit reaches the SDK as Google's 429 with the wait, an overflow in Gemini's own words", async () => {
    const { url } = await serve({ kind: "rate-limit", message: "Too many requests.", retryAfterMs: 7000 })
    const failure = await client(url)
      .models.generateContent({
        model: "gemini-2.5-pro",
        contents: "x",
        config: { httpOptions: { retryOptions: { attempts: 1 } } },
      })
      .catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(ApiError)
    expect((failure as ApiError).status).toBe(429)
    expect((failure as ApiError).message).toContain("RESOURCE_EXHAUSTED")
    await new Promise((resolve) => served?.server.close(resolve))
    const overflow = await serve({
      kind: "context-overflow",
      message: "prompt is too long: 213462 tokens > 200000 maximum",
    })
    const tooLong = await client(overflow.url)
      .models.generateContentStream({ model: "gemini-2.5-pro", contents: "x" })
      .catch((e: unknown) => e)
    expect((tooLong as ApiError).status).toBe(400)
    expect((tooLong as ApiError).message).toContain(
      "The input token count (213462) exceeds the maximum number of tokens allowed (200000).",
    )
  })
})
