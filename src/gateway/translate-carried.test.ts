/**
 * Translate mode, what real clients send: each official SDK sends what its real agent sends (Gemini CLI's JSON
 * routing call, Claude Code's adaptive thinking, effort and deferred tools, a Responses client's `store: false` and
 * structured output) through a real gateway to a local upstream that records the body it got, for every upstream
 * format. What the upstream's body carries is checked there; what it cannot carry is named in
 * `x-promptline-dropped`, and nothing else is.
 */
import type Anthropic from "@anthropic-ai/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { BuiltInWireFormat } from "../models/types.js"
import { formatModule } from "../providers/formats.js"
import { PLACEHOLDER_DESCRIPTION, SCHEMA } from "../providers/test-helpers/client-bodies.js"
import {
  FORMATS,
  type Matrix,
  requestsDuring,
  sdkClients,
  spokenFormat,
  startMatrix,
  UPSTREAMS,
} from "./test-helpers/matrix.js"

/** The `store` a Responses answer echoes (the SDK's Response type does not list it). */
const storedOf = (response: object) => (response as { store?: boolean }).store

const ANSWER = JSON.stringify({ route: "flash", reason: "A short question." })

let matrix: Matrix
beforeAll(async () => {
  matrix = await startMatrix(Array.from({ length: 40 }, () => ({ text: ANSWER })))
})
afterAll(async () => {
  await matrix?.close()
})

/** The one request the upstream got while `run` ran, read back in promptline's terms, and what `run` returned. */
async function upstreamGot<T>(upstream: BuiltInWireFormat, run: () => Promise<T>) {
  const { result, seen } = await requestsDuring(matrix.replay, run)
  expect(seen.map((r) => [r.format, r.outcome, r.problems])).toEqual([[spokenFormat(upstream), "answered", []]])
  const body = seen[0]!.body as Record<string, unknown>
  const decoded = formatModule(upstream).decodeRequest(body, { model: UPSTREAMS[upstream].model })
  return { result, body, decoded }
}

describe("Gemini CLI's routing call asks for JSON, and every upstream is asked for JSON", () => {
  for (const upstream of FORMATS) {
    it(`gemini client → ${upstream} upstream`, async () => {
      const { gemini } = sdkClients(matrix.gateway)
      const { result, decoded } = await upstreamGot(upstream, () =>
        gemini.models.generateContent({
          model: `to-${upstream}`,
          contents: [{ role: "user", parts: [{ text: "Route this request: what is 2 + 2?" }] }],
          config: {
            systemInstruction: "Choose the model for the request.",
            temperature: 0,
            maxOutputTokens: 1024,
            responseMimeType: "application/json",
            responseJsonSchema: SCHEMA,
          },
        }),
      )
      // The answer is JSON the CLI can parse: no retries.
      expect(JSON.parse(result.text ?? "")).toEqual(JSON.parse(ANSWER))
      const dropped = result.sdkHttpResponse?.headers?.["x-promptline-dropped"] ?? null
      if (upstream === "deepseek") {
        // DeepSeek's JSON mode takes no schema: JSON is asked for, the schema is named.
        expect(decoded.options.responseFormat).toEqual({ type: "json" })
        expect(dropped).toBe("generationConfig.responseJsonSchema")
      } else {
        expect(decoded.options.responseFormat).toEqual(expect.objectContaining({ type: "json-schema", schema: SCHEMA }))
        // Anthropic no longer takes temperature, nor does a reasoning model (the Responses route's gpt-5).
        const noTemperature = upstream === "anthropic" || upstream === "openai-responses"
        expect(dropped).toBe(noTemperature ? "generationConfig.temperature" : null)
      }
    })
  }
})

/** Claude Code's tool list with tool search on: loaded tools, its own search tool, deferred MCP tools, the placeholder. */
const claudeCodeTools = (): Anthropic.ToolUnion[] => {
  const tool = (name: string, extra: Partial<Anthropic.Tool> = {}): Anthropic.Tool => ({
    name,
    description: `The ${name} tool.`,
    input_schema: SCHEMA as Anthropic.Tool.InputSchema,
    ...extra,
  })
  return [
    tool("Bash"),
    tool("ToolSearch"),
    tool("mcp__github__create_issue", { defer_loading: true }),
    tool("DeferredPlaceholder", { description: PLACEHOLDER_DESCRIPTION, defer_loading: true }),
  ]
}

describe("Claude Code's adaptive thinking, effort and deferred tools reach every upstream, or are named", () => {
  for (const upstream of FORMATS) {
    it(`anthropic client → ${upstream} upstream`, async () => {
      const { anthropic } = sdkClients(matrix.gateway)
      const { result, body, decoded } = await upstreamGot(upstream, () =>
        anthropic.messages
          .create({
            model: `to-${upstream}`,
            max_tokens: 8192,
            thinking: { type: "adaptive" },
            output_config: { effort: "high" },
            tools: claudeCodeTools(),
            messages: [{ role: "user", content: "Open an issue about the crash." }],
          })
          .withResponse(),
      )
      const dropped = result.response.headers.get("x-promptline-dropped")
      const offered = decoded.prompt.tools.map((t) => t.name)
      if (upstream === "anthropic") {
        // Anthropic defers them itself: as sent, and the client searches on its own.
        expect(offered).toEqual(["Bash", "ToolSearch"])
        expect(decoded.prompt.deferredTools?.map((t) => t.name)).toEqual([
          "mcp__github__create_issue",
          "DeferredPlaceholder",
        ])
        expect(body.thinking).toEqual({ type: "adaptive" })
        expect(body.output_config).toEqual({ effort: "high" })
        expect(dropped).toBeNull()
        return
      }
      // Not offered until the client's own search references them (translate-deferred.test.ts); the placeholder never,
      // and it alone is named.
      expect(offered).toEqual(["Bash", "ToolSearch"])
      expect(JSON.stringify(body)).not.toContain("DeferredPlaceholder")
      const thinks = upstream !== "openai-chat" // the Chat route's gpt-4.1 does not think
      expect(dropped).toBe(["tools[3]", ...(thinks ? [] : ["thinking", "output_config.effort"])].join(", "))
      if (thinks)
        expect(decoded.options.thinking).toEqual(upstream === "gemini" ? { budgetTokens: 24_576 } : { effort: "high" })
      else expect(decoded.options.thinking).toBeUndefined()
    })
  }
})

describe("a Responses client's store and structured output", () => {
  for (const upstream of FORMATS) {
    it(`openai-responses client (store: false, text.format) → ${upstream} upstream`, async () => {
      const { openai } = sdkClients(matrix.gateway)
      const format = { type: "json_schema" as const, name: "route", schema: SCHEMA, strict: true }
      const { result, decoded } = await upstreamGot(upstream, () =>
        openai.responses
          .create({ model: `to-${upstream}`, input: "Route this request.", store: false, text: { format } })
          .withResponse(),
      )
      // The answer says what happened: not stored, and the format asked for.
      expect(storedOf(result.data)).toBe(false)
      expect(result.data.text).toEqual({ format })
      expect(JSON.parse(result.data.output_text)).toEqual(JSON.parse(ANSWER))
      const expected =
        upstream === "deepseek" ? { type: "json" } : expect.objectContaining({ type: "json-schema", schema: SCHEMA })
      expect(decoded.options.responseFormat).toEqual(expected)
      expect(result.response.headers.get("x-promptline-dropped")).toBe(
        upstream === "deepseek" ? "text.format.schema" : null,
      )
    })
  }

  it("store: true to an upstream that keeps nothing is named, and the answer says it was not stored", async () => {
    const { openai } = sdkClients(matrix.gateway)
    const { result } = await upstreamGot("openai-chat", () =>
      openai.responses.create({ model: "to-openai-chat", input: "Route this request.", store: true }).withResponse(),
    )
    expect(storedOf(result.data)).toBe(false)
    expect(result.response.headers.get("x-promptline-dropped")).toBe("store")
  })

  it("a field whose name is not ASCII is named in the header as \\u escapes (a line break in a header was a 500)", async () => {
    const { openai } = sdkClients(matrix.gateway)
    const body = { model: "to-openai-chat", input: "Route this request.", store: false, "réglage\n": 1 }
    const { result } = await upstreamGot("openai-chat", () => openai.responses.create(body as never).withResponse())
    expect(result.response.headers.get("x-promptline-dropped")).toBe("r\\u00e9glage\\u000a")
  })

  it("store: true to a Responses upstream is kept", async () => {
    const { openai } = sdkClients(matrix.gateway)
    const { result, body } = await upstreamGot("openai-responses", () =>
      openai.responses
        .create({ model: "to-openai-responses", input: "Route this request.", store: true })
        .withResponse(),
    )
    expect([body.store, storedOf(result.data), result.response.headers.get("x-promptline-dropped")]).toEqual([
      true,
      true,
      null,
    ])
  })
})

describe("a Chat client's response_format", () => {
  it("reaches a Gemini upstream as JSON output with the schema", async () => {
    const { openai } = sdkClients(matrix.gateway)
    const { result, body } = await upstreamGot("gemini", () =>
      openai.chat.completions
        .create({
          model: "to-gemini",
          messages: [{ role: "user", content: "Route this request." }],
          response_format: { type: "json_schema", json_schema: { name: "route", schema: SCHEMA } },
        })
        .withResponse(),
    )
    expect(body.generationConfig).toMatchObject({ responseMimeType: "application/json", responseJsonSchema: SCHEMA })
    expect(JSON.parse(result.data.choices[0]!.message.content ?? "")).toEqual(JSON.parse(ANSWER))
    expect(result.response.headers.get("x-promptline-dropped")).toBeNull()
  })
})
