import { type GenerateContentResponse, GoogleGenAI } from "@google/genai"
import { afterEach, describe, expect, it } from "vitest"
import { geminiFormat } from "./gemini.js"
import { resolveTurn } from "./resolve.js"
import { type ReplayServer, startReplayServer } from "./server.js"
import {
  finalTurn,
  keyPaths,
  kindSequence,
  recordedStream,
  richTurn,
  sampleParameters,
  scriptOf,
} from "./test-helpers/fixtures.js"

const tools = [
  {
    functionDeclarations: [
      { name: "read_file", description: "Read a file", parametersJsonSchema: sampleParameters },
      { name: "execute_command", description: "Run a command", parametersJsonSchema: sampleParameters },
    ],
  },
]

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function client(...turns: Parameters<typeof scriptOf>) {
  server = await startReplayServer({ script: scriptOf(...turns) })
  return new GoogleGenAI({ apiKey: "test-key", httpOptions: { baseUrl: server.urls.gemini } })
}

async function collect(stream: AsyncIterable<GenerateContentResponse>): Promise<GenerateContentResponse[]> {
  const chunks: GenerateContentResponse[] = []
  for await (const chunk of stream) chunks.push(chunk)
  return chunks
}

const allParts = (chunks: GenerateContentResponse[]) => chunks.flatMap((c) => c.candidates?.[0]?.content?.parts ?? [])
/** The answer's text (the SDK's `.text` warns when calls are present). */
const textOf = (chunks: GenerateContentResponse[]) =>
  allParts(chunks)
    .filter((p) => !p.thought)
    .map((p) => p.text ?? "")
    .join("")

const kind = (e: Record<string, unknown>) => {
  const candidate = (e.candidates as { content?: { parts?: Record<string, unknown>[] }; finishReason?: string }[])[0]!
  if (candidate.finishReason) return "finish"
  const part = candidate.content?.parts?.[0] ?? {}
  return part.functionCall ? "call" : part.thought ? "thought" : "text"
}

describe("Gemini replay", () => {
  it("streams a turn the official SDK assembles exactly: thoughts, text, function calls, usage", async () => {
    const ai = await client(richTurn, finalTurn)
    const chunks = await collect(
      await ai.models.generateContentStream({
        model: "gemini-2.5-pro",
        contents: "Fix the bug.",
        config: { tools, thinkingConfig: { includeThoughts: true } },
      }),
    )
    const parts = allParts(chunks)
    expect(
      parts
        .filter((p) => p.thought)
        .map((p) => p.text)
        .join(""),
    ).toBe(richTurn.thinking)
    expect(textOf(chunks)).toBe(richTurn.text)
    expect(chunks.flatMap((c) => c.functionCalls ?? [])).toEqual([
      { name: "read_file", args: richTurn.toolCalls[0]!.input },
      { name: "execute_command", args: richTurn.toolCalls[1]!.input },
    ])
    expect(parts.find((p) => p.functionCall)?.thoughtSignature).toEqual(expect.any(String))
    const last = chunks.at(-1)!
    expect(last.candidates?.[0]?.finishReason).toBe("STOP")
    expect(last.usageMetadata).toMatchObject({
      promptTokenCount: 1320,
      cachedContentTokenCount: 1000,
      candidatesTokenCount: 35,
      thoughtsTokenCount: 10,
      totalTokenCount: 1365,
    })
    expect(server!.requests[0]).toMatchObject({
      path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
      query: "?alt=sse",
      headers: { "x-goog-api-key": "[redacted]" },
    })
  })

  it("leaves thoughts out unless the request asks to include them", async () => {
    const ai = await client(richTurn)
    const chunks = await collect(
      await ai.models.generateContentStream({ model: "gemini-2.5-pro", contents: "x", config: { tools } }),
    )
    expect(allParts(chunks).some((p) => p.thought)).toBe(false)
  })

  it("answers generateContent with one response holding every part", async () => {
    const ai = await client(richTurn)
    const response = await ai.models.generateContent({ model: "gemini-2.5-pro", contents: "x", config: { tools } })
    expect(textOf([response])).toBe(richTurn.text)
    expect(response.functionCalls?.map((c) => c.name)).toEqual(["read_file", "execute_command"])
    expect(response.usageMetadata?.totalTokenCount).toBe(1365)
  })

  it("writes calls as XML text without tools, and reads function responses for the expectations", async () => {
    const ai = await client(
      { text: "Reading.", toolCalls: [{ name: "read_file", input: { path: "a.txt" } }] },
      { text: "Native now.", toolCalls: [{ name: "read_file", input: { path: "b.txt" } }] },
      { text: "Done.", expect: { toolResults: [{ tool: "read_file", matches: "contents of b" }], dialect: "native" } },
    )
    const xml = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "x" })
    expect(xml.text).toBe("Reading.\n\n<read_file>\n<path>a.txt</path>\n</read_file>")
    const native = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: "x", config: { tools } })
    const call = native.functionCalls![0]!
    const done = await ai.models.generateContent({
      model: "gemini-2.5-flash",
      config: { tools },
      contents: [
        { role: "user", parts: [{ text: "x" }] },
        { role: "model", parts: [{ functionCall: call }] },
        { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "contents of b" } } }] },
      ],
    })
    expect(done.text).toBe("Done.")
    server!.assertComplete()
  })

  it("emits the chunk sequence and fields of recorded Gemini streams", () => {
    const render = (turn: Parameters<typeof scriptOf>[0]) => {
      const body = { contents: [{ role: "user", parts: [{ text: "x" }] }], tools }
      const view = geminiFormat.view(body, new Map(), { model: "gemini-3-pro-preview", stream: true, sse: true })
      const resolved = resolveTurn(scriptOf(turn).turns[0]!, 0, {
        dialect: "native",
        callIdPrefix: "g_",
        requestChars: 1,
      })
      return geminiFormat.events({ turn: resolved, view, body, created: 0, chunkSize: 12 })
    }
    const text = render({ thinking: "count the r letters", text: 'There are **3** "r"s in strawberry.' })
    expect(kindSequence(text, kind)).toEqual(kindSequence(recordedStream("gemini", "google-text.chunks.txt"), kind))
    const call = render({ thinking: "weather", toolCalls: [{ name: "weather", input: { location: "San Francisco" } }] })
    expect(kindSequence(call, kind)).toEqual(
      kindSequence(recordedStream("gemini", "google-tool-call.chunks.txt"), kind),
    )
    const known = new Set(
      ["google-text.chunks.txt", "google-tool-call.chunks.txt", "google-tool-call-gemini3.chunks.txt"]
        .flatMap((f) => recordedStream("gemini", f))
        .flatMap((e) => keyPaths(e)),
    )
    const invented = [...text, ...call]
      .flatMap((e) => keyPaths(e))
      .filter((p) => !p.includes(".args.") && !known.has(p))
    expect(invented).toEqual([])
  })
})

describe("Gemini replay: a stream without alt=sse", () => {
  it("is the format module's JSON array, byte for byte: '[' + chunks joined by ',\\r\\n' + ']'", async () => {
    server = await startReplayServer({ script: scriptOf(richTurn) })
    const res = await fetch(`${server.urls.gemini}/v1beta/models/gemini-2.5-pro:streamGenerateContent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "x" }] }], tools }),
    })
    const text = await res.text()
    const chunks = JSON.parse(text) as unknown[]
    expect(chunks.length).toBeGreaterThan(2)
    expect(text).toBe(`[${chunks.map((c) => JSON.stringify(c)).join(",\r\n")}]`)
  })
})

describe("Gemini replay: the current API's request shapes", () => {
  it("reads a snake_case body as the REST API does: system_instruction, function_declarations, function_response", async () => {
    server = await startReplayServer({
      script: scriptOf({
        thinking: "Checking.",
        text: "Done.",
        expect: { system: "Be brief", tools: ["read_file"], toolResults: [{ tool: "read_file", matches: "hello" }] },
      }),
    })
    const res = await fetch(`${server.urls.gemini}/v1beta/models/gemini-3-pro:generateContent`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-goog-api-key": "test-key" },
      body: JSON.stringify({
        system_instruction: { parts: [{ text: "Be brief." }] },
        contents: [
          { role: "user", parts: [{ text: "Read it." }] },
          { role: "model", parts: [{ function_call: { name: "read_file", args: { path: "a" } } }] },
          { role: "user", parts: [{ function_response: { name: "read_file", response: { output: "hello" } } }] },
        ],
        tools: [{ function_declarations: [{ name: "read_file", parameters: { type: "OBJECT" } }] }],
        generation_config: { thinking_config: { include_thoughts: true } },
        safety_settings: [],
        a_field_from_the_future: true,
      }),
    })
    expect(res.status).toBe(200)
    const parts = ((await res.json()) as { candidates: { content: { parts: { thought?: boolean }[] } }[] })
      .candidates[0]!.content.parts
    expect(parts.some((p) => p.thought === true)).toBe(true)
    expect(server.requests[0]).toMatchObject({ outcome: "answered", unknownFields: ["a_field_from_the_future"] })
  })
})
