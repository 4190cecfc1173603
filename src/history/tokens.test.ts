import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { encode as encodeCl100k } from "gpt-tokenizer/encoding/cl100k_base"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { beforeAll, describe, expect, it } from "vitest"
import type { Message } from "./message.js"
import { ESTIMATE_FACTORS, overheadOf, TokenCounter } from "./tokens.js"

let counter: TokenCounter
beforeAll(async () => {
  counter = await TokenCounter.create({ maxEntries: 8 })
})

const plain = { disallowedSpecial: new Set<string>() }

describe("TokenCounter", () => {
  it("counts o200k and cl100k exactly, short and long texts, cached or not", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.integer({ min: 0, max: 300 }), (s, repeat) => {
        const text = s + "x".repeat(repeat)
        expect(counter.countText(text, "o200k")).toBe(encode(text, plain).length)
        expect(counter.countText(text, "o200k")).toBe(encode(text, plain).length)
        expect(counter.countText(text, "cl100k")).toBe(encodeCl100k(text, plain).length)
      }),
      { numRuns: 60 },
    )
  })

  it("counts special-token text as ordinary text instead of throwing", () => {
    expect(counter.countText("a <|endoftext|> b")).toBe(encode("a <|endoftext|> b", plain).length)
  })

  it("estimates other families as o200k times the published factor, rounded up", () => {
    const text = "function fit(history) { return history.slice(-2) }\n".repeat(20)
    const exact = counter.countText(text, "o200k")
    expect(counter.countText(text, "claude")).toBe(Math.ceil(exact * ESTIMATE_FACTORS.claude))
    expect(counter.countText(text, "gemini")).toBe(Math.ceil(exact * ESTIMATE_FACTORS.gemini))
    const custom = new TokenCounter({ o200k: () => 100, cl100k: () => 100 }, { factors: { claude: 2 } })
    expect(custom.countText("anything", "claude")).toBe(200)
  })

  it("adds per-message, per-request and tool-block overheads", () => {
    const o = overheadOf("openai-chat")
    const m: Message = {
      id: "a",
      role: "assistant",
      ts: 0,
      content: [
        { type: "text", text: "hello there" },
        { type: "tool_use", id: "t1", name: "read_file", input: { path: "a.ts" } },
      ],
    }
    const expected =
      o.message +
      counter.countText("hello there") +
      counter.countText(`read_file ${JSON.stringify({ path: "a.ts" })}`) +
      o.toolBlock
    expect(counter.countMessage(m, "o200k", o)).toBe(expected)
    expect(counter.countMessages([m, m], "o200k", o)).toBe(o.request + 2 * expected)
  })

  it("counts images by overhead and tool definitions with the Anthropic tool preamble", () => {
    const o = overheadOf("anthropic")
    const m: Message = {
      id: "i",
      role: "user",
      ts: 0,
      content: [{ type: "image", mediaType: "image/png", data: "AAAA" }],
    }
    expect(counter.countMessage(m, "claude", o)).toBe(o.message + o.image)
    const tools = [{ name: "read_file", description: "Reads a file.", parameters: { type: "object" } }]
    expect(counter.countTools(tools, "claude", o)).toBeGreaterThan(o.toolsPreamble)
    expect(counter.countTools([], "claude", o)).toBe(0)
  })
})

describe("loading the encoders", () => {
  it("loads cl100k only when a cl100k count is first asked for", () => {
    // In a fresh process: whether cl100k (required on first use) is loaded after an o200k count, then after a
    // cl100k one.
    const tokens = fileURLToPath(new URL("./tokens.ts", import.meta.url))
    const script = [
      'import { createRequire } from "node:module"',
      `const { TokenCounter } = await import(${JSON.stringify(tokens)})`,
      "const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => f.includes('cl100k_base'))",
      "const counter = await TokenCounter.create()",
      "const o200k = counter.countText('hello world', 'o200k')",
      "const before = loaded()",
      "const cl100k = counter.countText('hello world', 'cl100k')",
      "console.log(JSON.stringify({ o200k, before, cl100k, after: loaded() }))",
    ].join("\n")
    const out = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: fileURLToPath(new URL("../..", import.meta.url)),
      encoding: "utf8",
    })
    expect(JSON.parse(out)).toEqual({
      o200k: 2,
      before: false,
      cl100k: encodeCl100k("hello world").length,
      after: true,
    })
  })
})
