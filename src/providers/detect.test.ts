import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { WIRE_FORMATS } from "../models/types.js"
import { detectFormat, formatOfPayload } from "./detect.js"

const recorded = fileURLToPath(new URL("../../test/fixtures/streams/", import.meta.url))

describe("detectFormat", () => {
  it("names the folder's format for every recorded provider stream and body", () => {
    let checked = 0
    for (const format of WIRE_FORMATS) {
      for (const name of readdirSync(join(recorded, format))) {
        if (!/\.(txt|json|sse)$/.test(name)) continue
        const text = readFileSync(join(recorded, format, name), "utf8")
        expect({ name, format: detectFormat(text)?.format }).toEqual({ name, format })
        checked++
      }
    }
    expect(checked).toBeGreaterThan(20)
  })

  it("reads raw SSE as well as JSON lines, and says what decided", () => {
    const sse = 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n'
    expect(detectFormat(sse)).toEqual({ format: "anthropic", evidence: 'a "message_start" event' })
    const chat = 'data: {"object":"chat.completion.chunk","model":"gpt-4o","choices":[]}\n\ndata: [DONE]\n\n'
    expect(detectFormat(chat)).toEqual({ format: "openai-chat", evidence: 'object "chat.completion.chunk"' })
  })

  it("tells DeepSeek from OpenAI Chat by a mark on any chunk", () => {
    const lines = [
      { object: "chat.completion.chunk", model: "my-proxy", choices: [{ delta: { role: "assistant" } }] },
      { object: "chat.completion.chunk", model: "my-proxy", choices: [], usage: { prompt_cache_hit_tokens: 3 } },
    ]
    expect(detectFormat(lines.map((l) => JSON.stringify(l)).join("\n"))?.format).toBe("deepseek")
  })

  it("finds nothing in text without a provider's marks", () => {
    expect(detectFormat("")).toBeUndefined()
    expect(detectFormat("hello\nworld")).toBeUndefined()
    expect(detectFormat('{"a":1}')).toBeUndefined()
    expect(formatOfPayload([1, 2])).toBeUndefined()
  })
})
