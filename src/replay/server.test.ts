import Anthropic from "@anthropic-ai/sdk"
import { GoogleGenAI } from "@google/genai"
import OpenAI from "openai"
import { afterEach, describe, expect, it } from "vitest"
import { PromptlineError } from "../errors.js"
import { ReplayError, type ReplayServer, startReplayServer } from "./server.js"
import { finalTurn, scriptOf } from "./test-helpers/fixtures.js"

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function start(...turns: Parameters<typeof scriptOf>) {
  server = await startReplayServer({ script: scriptOf(...turns) })
  return server
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  })

const anthropicBody = { model: "m", max_tokens: 16, messages: [{ role: "user" as const, content: "hi" }] }

describe("replay server", () => {
  it("listens on a free port and gives each client its base URL", async () => {
    const s = await start(finalTurn)
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(s.urls).toEqual({
      anthropic: s.url,
      openai: `${s.url}/v1`,
      gemini: s.url,
      responsesWebSocket: `${s.url.replace("http", "ws")}/v1/responses`,
    })
  })

  it("serves scripted faults (a 429, then a 500) before the turn; the official SDK retries through them", async () => {
    const s = await start({ ...finalTurn, faults: [{ kind: "rate-limit", retryAfter: 0 }, { kind: "server-error" }] })
    const anthropic = new Anthropic({ apiKey: "k", baseURL: s.urls.anthropic, maxRetries: 2 })
    const message = await anthropic.messages.create(anthropicBody)
    expect(message.content).toEqual([{ type: "text", text: finalTurn.text }])
    expect(s.requests.map((r) => [r.outcome, r.status, r.turn])).toEqual([
      ["fault", 429, 0],
      ["fault", 500, 0],
      ["answered", 200, 0],
    ])
  })

  it("puts each injected fault in the provider's own error shape", async () => {
    const s = await start(finalTurn)
    s.injectFault(0, { kind: "rate-limit", retryAfter: 7 })
    s.injectFault(0, { kind: "overloaded" })
    s.injectFault(0, { kind: "context-overflow" })
    s.injectFault(0, { kind: "server-error" })
    const limited = await post("/v1/messages", anthropicBody)
    expect(limited.status).toBe(429)
    expect(limited.headers.get("retry-after")).toBe("7")
    expect(await limited.json()).toMatchObject({ type: "error", error: { type: "rate_limit_error" } })
    const overloaded = await post("/v1/chat/completions", {
      model: "gpt-4.1",
      messages: [{ role: "user", content: "x" }],
    })
    expect(overloaded.status).toBe(503)
    expect(await overloaded.json()).toMatchObject({ error: { type: "server_error", code: "overloaded" } })
    const overflow = await post("/v1beta/models/gemini-2.5-pro:generateContent", {
      contents: [{ role: "user", parts: [{ text: "x" }] }],
    })
    expect(overflow.status).toBe(400)
    expect(await overflow.json()).toMatchObject({
      error: {
        code: 400,
        status: "INVALID_ARGUMENT",
        message: expect.stringMatching(/exceeds the maximum number of tokens/),
      },
    })
    const failed = await post("/v1/responses", { model: "gpt-5", input: "x" })
    expect(failed.status).toBe(500)
    expect(await failed.json()).toMatchObject({ error: { type: "server_error" } })
    expect((await post("/v1/messages", anthropicBody)).status).toBe(200)
  })

  it("gives the SDKs errors they recognise: Anthropic overloaded (529) and a Gemini rate limit with RetryInfo", async () => {
    const s = await start(finalTurn)
    s.injectFault(0, { kind: "overloaded" })
    s.injectFault(0, { kind: "rate-limit", retryAfter: 2 })
    const anthropic = new Anthropic({ apiKey: "k", baseURL: s.urls.anthropic, maxRetries: 0 })
    await expect(anthropic.messages.create(anthropicBody)).rejects.toMatchObject({
      status: 529,
      error: { type: "error", error: { type: "overloaded_error" } },
    })
    const gemini = new GoogleGenAI({ apiKey: "k", httpOptions: { baseUrl: s.urls.gemini } })
    const error = await gemini.models
      .generateContent({ model: "gemini-2.5-pro", contents: "x" })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 429 })
    expect(String((error as Error).message)).toContain("RetryInfo")
  })

  it("rejects malformed requests with 400 in each provider's shape and records why", async () => {
    const s = await start(finalTurn)
    const anthropic = await post("/v1/messages", { model: "m", messages: [] })
    expect(anthropic.status).toBe(400)
    expect(await anthropic.json()).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", message: expect.stringContaining("max_tokens") },
    })
    const chat = await post("/v1/chat/completions", { model: "gpt-4.1", messages: [{ role: "robot", content: "x" }] })
    expect(await chat.json()).toMatchObject({
      error: { type: "invalid_request_error", message: expect.stringContaining("robot") },
    })
    const gemini = await post("/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", { contents: [] })
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } })
    const notJson = await post("/v1/responses", "{not json")
    expect(notJson.status).toBe(400)
    expect(s.requests.map((r) => [r.outcome, r.status])).toEqual([
      ["rejected", 400],
      ["rejected", 400],
      ["rejected", 400],
      ["rejected", 400],
    ])
    expect(s.requests[3]!.body).toBe("{not json")
    expect(s.served).toBe(0)
  })

  it("also answers OpenAI-compatible paths without the /v1 prefix, as DeepSeek's base URL has none", async () => {
    const s = await start(finalTurn)
    const deepseek = new OpenAI({ apiKey: "k", baseURL: s.url, maxRetries: 0 })
    const completion = await deepseek.chat.completions.create({
      model: "deepseek-chat",
      messages: [{ role: "user", content: "x" }],
    })
    expect(completion.choices[0]!.message.content).toBe(finalTurn.text)
    expect(s.requests[0]!.path).toBe("/chat/completions")
  })

  it("answers unknown paths with 404 and other methods with 405", async () => {
    const s = await start(finalTurn)
    const missing = await post("/v1/embeddings", { model: "x", input: "y" })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ error: { code: "unknown_url" } })
    const get = await fetch(`${s.url}/v1/messages`)
    expect(get.status).toBe(405)
    expect(s.requests.map((r) => r.outcome)).toEqual(["not-found", "rejected"])
  })

  it("fails loudly when the agent diverges from the script, and when the script runs out", async () => {
    const s = await start(
      { text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "a" } }] },
      { text: "Done.", expect: { toolResults: [{ tool: "read_file", matches: "expected text" }] } },
    )
    const openai = new OpenAI({ apiKey: "k", baseURL: s.urls.openai, maxRetries: 0 })
    const tools = [{ type: "function" as const, function: { name: "write_to_file", parameters: { type: "object" } } }]
    // The scripted call is to a tool the request does not offer.
    await expect(
      openai.chat.completions.create({ model: "gpt-4.1", tools, messages: [{ role: "user", content: "x" }] }),
    ).rejects.toMatchObject({ status: 400, code: "replay_diverged" })
    const first = await openai.chat.completions.create({ model: "gpt-4.1", messages: [{ role: "user", content: "x" }] })
    const error = await openai.chat.completions
      .create({
        model: "gpt-4.1",
        messages: [
          { role: "user", content: "x" },
          { role: "assistant", content: first.choices[0]!.message.content },
          { role: "user", content: '<tool_result tool="read_file">\nsomething else\n</tool_result>' },
        ],
      })
      .catch((e: unknown) => e as Error)
    expect(String(error)).toMatch(/turn 2.*read_file matching expected text.*something else/)
    expect(() => s.assertComplete()).toThrow(ReplayError)
    try {
      s.assertComplete()
    } catch (e) {
      expect(e).toBeInstanceOf(PromptlineError)
      expect((e as ReplayError).code).toBe("replay-incomplete")
      expect((e as Error).message).toMatch(/request 1 \(turn 1\): the turn calls read_file/)
      expect((e as Error).message).toMatch(/1 of 2 turns were never requested/)
    }
    expect(s.divergences.map((d) => d.turn)).toEqual([0, 1])
  })

  it("reports an exhausted script as a divergence", async () => {
    const s = await start(finalTurn)
    expect((await post("/v1/messages", anthropicBody)).status).toBe(200)
    const extra = await post("/v1/messages", anthropicBody)
    expect(extra.status).toBe(400)
    expect(await extra.json()).toMatchObject({ error: { message: expect.stringMatching(/exhausted/) } })
    expect(() => s.assertComplete()).toThrow(/exhausted/)
  })

  it("records every request body with credentials redacted", async () => {
    const s = await start(finalTurn)
    const anthropic = new Anthropic({ apiKey: "sk-secret", baseURL: s.urls.anthropic, maxRetries: 0 })
    await anthropic.messages.create({ ...anthropicBody, system: "Be brief." })
    const [recorded] = s.requests
    expect(recorded).toMatchObject({
      seq: 0,
      transport: "http",
      method: "POST",
      path: "/v1/messages",
      format: "anthropic",
      turn: 0,
      outcome: "answered",
      body: { ...anthropicBody, system: "Be brief." },
    })
    const credential = recorded!.headers["x-api-key"] ?? recorded!.headers.authorization
    expect(credential).toBe("[redacted]")
    expect(JSON.stringify(s.requests)).not.toContain("sk-secret")
    expect(recorded!.headers["anthropic-version"]).toBeDefined()
  })

  it("cuts the stream halfway for a disconnect fault, then serves the turn whole", async () => {
    const s = await start({ text: "A fairly long answer that is streamed in several pieces to the client." })
    s.injectFault(0, { kind: "disconnect" })
    const body = { ...anthropicBody, stream: true }
    const cut = await post("/v1/messages", body)
    expect(cut.status).toBe(200)
    await expect(cut.text()).rejects.toThrow()
    const whole = await (await post("/v1/messages", body)).text()
    expect(whole.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true)
    expect(s.requests.map((r) => r.outcome)).toEqual(["fault", "answered"])
  })

  it("streams byte-identical answers for the same script and requests", async () => {
    const run = async () => {
      const s = await startReplayServer({ script: scriptOf(finalTurn) })
      const text = await (
        await fetch(`${s.url}/v1/chat/completions`, {
          method: "POST",
          body: JSON.stringify({ model: "gpt-4.1", stream: true, messages: [{ role: "user", content: "x" }] }),
        })
      ).text()
      await s.close()
      return text
    }
    const [a, b] = [await run(), await run()]
    expect(a).toBe(b)
    expect(a.endsWith("data: [DONE]\n\n")).toBe(true)
  })

  it("answers a Gemini stream without alt=sse as one JSON array of chunks", async () => {
    await start(finalTurn)
    const response = await post("/v1beta/models/gemini-2.5-flash:streamGenerateContent", {
      contents: [{ role: "user", parts: [{ text: "x" }] }],
    })
    const chunks = (await response.json()) as { candidates: { content: { parts: { text: string }[] } }[] }[]
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0]!.text).join("")).toBe(finalTurn.text)
  })
})

describe("replay server for loads", () => {
  it("with loop starts the script again after its last turn, and keeps only the last requests asked for", async () => {
    server = await startReplayServer({
      script: scriptOf({ text: "first" }, { text: "second" }),
      loop: true,
      keepRequests: 2,
    })
    const texts: string[] = []
    for (let i = 0; i < 5; i++) {
      const res = await post("/v1/messages", anthropicBody)
      expect(res.status).toBe(200)
      const answer = (await res.json()) as { content: { text: string }[] }
      texts.push(answer.content[0]!.text)
    }
    expect(texts).toEqual(["first", "second", "first", "second", "first"])
    expect(server.requests.map((r) => r.seq)).toEqual([3, 4])
    expect(server.served).toBe(5)
    expect(() => server!.assertComplete()).not.toThrow()
  })

  it("without loop refuses a request past the last turn", async () => {
    server = await startReplayServer({ script: scriptOf({ text: "only" }) })
    expect((await post("/v1/messages", anthropicBody)).status).toBe(200)
    expect((await post("/v1/messages", anthropicBody)).status).toBeGreaterThanOrEqual(400)
    expect(server.requests).toHaveLength(2)
  })
})
