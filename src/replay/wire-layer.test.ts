import { afterEach, describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import type { BuiltInWireFormat } from "../models/types.js"
import { decodeResponse } from "../providers/decode.js"
import { encodeRequest } from "../providers/encode.js"
import type { EnabledTool } from "../tools/spec.js"
import { type ReplayServer, startReplayServer } from "./server.js"
import { richTurn, scriptOf } from "./test-helpers/fixtures.js"

/**
 * The path the agent takes: our encoders write the request, the replay server answers it, our
 * decoders assemble the answer. The assembled message and usage must be the scripted turn.
 */

const tool = (name: string): EnabledTool => ({
  id: name,
  kind: name === "read_file" ? "read" : "execute",
  name,
  description: `The ${name} tool.`,
  snippet: name,
  guidelines: [],
  parameters: {
    type: "object",
    properties: { path: { type: "string" }, command: { type: "string" } },
    required: [],
  },
  examples: {},
})

const tools = [tool("read_file"), tool("execute_command")]
const history: Message[] = [{ id: "u1", role: "user", content: [{ type: "text", text: "Fix the bug." }], ts: 1 }]

const MODELS: Record<BuiltInWireFormat, string> = {
  anthropic: "claude-sonnet-4-6",
  "openai-chat": "gpt-4.1",
  "openai-responses": "gpt-5",
  gemini: "gemini-2.5-pro",
  deepseek: "deepseek-v4-pro",
}

function path(format: BuiltInWireFormat, model: string): string {
  switch (format) {
    case "anthropic":
      return "/v1/messages"
    case "openai-chat":
    case "deepseek":
      return "/v1/chat/completions"
    case "openai-responses":
      return "/v1/responses"
    case "gemini":
      return `/v1beta/models/${model}:streamGenerateContent?alt=sse`
  }
}

let server: ReplayServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function send(format: BuiltInWireFormat, toolCalling: "native" | "xml", messages: readonly Message[]) {
  const { model } = resolveModel(MODELS[format])
  const { body } = encodeRequest(format, {
    prompt: { text: "You are a coding agent. Tools: read_file, execute_command.", tools, toolCalling },
    messages,
    model,
    options: { maxTokens: 1024, thinking: { budgetTokens: 2048, effort: "low" } },
  })
  const response = await fetch(`${server!.url}${path(format, model.id)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  })
  expect(response.status, JSON.stringify(server!.requests.at(-1)?.problems)).toBe(200)
  return decodeResponse(format, response.body!, { ts: messages.length + 1 })
}

async function roundTrip(format: BuiltInWireFormat, toolCalling: "native" | "xml") {
  server = await startReplayServer({ script: scriptOf(richTurn) })
  return send(format, toolCalling, history)
}

const FORMATS: BuiltInWireFormat[] = ["anthropic", "openai-chat", "openai-responses", "gemini", "deepseek"]

describe("our encoders → the replay server → our decoders", () => {
  it.each(FORMATS)("%s: native tool calls, text and usage arrive as scripted", async (format) => {
    const assembled = await roundTrip(format, "native")
    expect(assembled.errors).toEqual([])
    const calls = assembled.message.content.filter((b) => b.type === "tool_use")
    expect(calls.map((c) => [c.name, c.input])).toEqual(richTurn.toolCalls.map((c) => [c.name, c.input]))
    const text = assembled.message.content.filter((b) => b.type === "text").map((b) => b.text)
    expect(text.join("")).toBe(richTurn.text)
    expect(assembled.stopReason).toBe("tool_use")
    // Only Anthropic reports cache writes; the others count them as plain input.
    const expected =
      format === "anthropic"
        ? { input: 120, output: 45, cacheRead: 1000, cacheWrite: 200 }
        : { input: 320, output: 45, cacheRead: 1000, cacheWrite: 0, reasoning: 10 }
    expect(assembled.usage).toMatchObject(expected)
    const thinking = assembled.message.content.flatMap((b) => (b.type === "thinking" ? [b.text] : []))
    expect(thinking).toEqual([richTurn.thinking])
  })

  it.each(FORMATS)("%s: without native tools the calls come back as XML text", async (format) => {
    const assembled = await roundTrip(format, "xml")
    expect(server!.requests[0]!.outcome).toBe("answered")
    const text = assembled.message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("")
    expect(text).toContain("<read_file>\n<path>src/a.ts</path>")
    expect(assembled.message.content.some((b) => b.type === "tool_use")).toBe(false)
  })

  it.each(FORMATS)("%s: the tool results our encoders write meet the next turn's expectations", async (format) => {
    for (const toolCalling of ["native", "xml"] as const) {
      server = await startReplayServer({
        script: scriptOf(richTurn, {
          text: "Both seen.",
          expect: {
            dialect: toolCalling,
            toolResults: [
              { tool: "read_file", matches: "^export const a" },
              { tool: "execute_command", matches: "3 passed" },
            ],
          },
        }),
      })
      const first = await send(format, toolCalling, history)
      // The XML dialect's calls reach the history as tool_use blocks too (the XML parser's job).
      const assistant: Message =
        toolCalling === "native"
          ? first.message
          : {
              ...first.message,
              content: richTurn.toolCalls.map((c, i) => ({
                type: "tool_use",
                id: `xml_0_${i}`,
                name: c.name,
                input: c.input,
              })),
            }
      const calls = assistant.content.flatMap((b) => (b.type === "tool_use" ? [b] : []))
      const results: Message = {
        id: "u2",
        role: "user",
        ts: 3,
        content: calls.map((c) => ({
          type: "tool_result",
          toolUseId: c.id,
          content: c.name === "read_file" ? "export const a = 1\n" : "3 passed, 0 failed",
        })),
      }
      const second = await send(format, toolCalling, [...history, assistant, results])
      expect(second.message.content.filter((b) => b.type === "text")).toEqual([{ type: "text", text: "Both seen." }])
      server.assertComplete()
      await server.close()
      server = undefined
    }
  })
})
