/**
 * `decodeRequest(encode(x))` gives back x, for OpenAI Chat and DeepSeek, up to what the Chat wire cannot say.
 * "Equal" means equal after `wireView`, which applies exactly the encoder's documented losses:
 * - a user message's tool results come first (tool messages precede the user's own parts); its texts are joined
 *   by blank lines into one when it holds no image; an assistant's texts are joined the same way;
 * - thinking goes back only where the target takes it: never to OpenAI (`reasoning_content` is omitted), and to
 *   DeepSeek only in turns where the model called tools (elsewhere DeepSeek ignores it, so it is left out);
 * - message ids are renumbered `m1…` and `ts` is 0; options are compared without `compat` (how, not what), and
 *   DeepSeek takes no prompt-cache hints.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fixtureModel } from "../../../test/fixtures/providers/requests/load.js"
import type { Block, Message, ToolResultBlock } from "../../history/message.js"
import type { EnabledTool } from "../../tools/spec.js"
import { encodeDeepSeek } from "../deepseek/encode.js"
import type { EncodeInput, EncodeOptions } from "../types.js"
import { encodeOpenAIChat } from "./encode.js"
import { decodeChatRequest } from "./request-decode.js"
import { chatClientTool as clientTool } from "./tools.js"

type Flavour = "openai-chat" | "deepseek"

const nonBlank = fc.string({ minLength: 1, maxLength: 12 }).filter((s) => s.trim() !== "")
const resultText = fc.string({ maxLength: 12 }).filter((s) => !s.startsWith("Error: "))
const word = fc.stringMatching(/^[a-z]{1,6}$/)
const json = fc.dictionary(word, fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.boolean()), { maxKeys: 3 })
const image = fc.record({
  type: fc.constant("image" as const),
  mediaType: fc.constantFrom("image/png", "image/jpeg"),
  data: fc.base64String({ minLength: 4, maxLength: 16 }),
})

const toolsArb = fc
  .uniqueArray(fc.stringMatching(/^[a-z_]{1,10}$/), { maxLength: 3 })
  .chain((names) =>
    fc.tuple(
      ...names.map((name) =>
        fc.tuple(fc.constant(name), fc.string({ maxLength: 10 }), fc.uniqueArray(word, { maxLength: 2 })),
      ),
    ),
  )
  .map((specs) =>
    specs.map(([name, description, props]) =>
      clientTool(name, description, {
        type: "object",
        properties: Object.fromEntries(props.map((p) => [p, { type: "string" }])),
        required: props.slice(0, 1),
      }),
    ),
  )

/** One exchange: the user's turn (answering the previous calls), an optional system message, the assistant's. */
const exchangeArb = (images: boolean) =>
  fc.record({
    userParts: fc.array(
      images
        ? fc.oneof(
            nonBlank.map((text) => ({ type: "text" as const, text })),
            image,
          )
        : nonBlank.map((text) => ({ type: "text" as const, text })),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    results: fc.array(fc.record({ text: resultText, isError: fc.boolean() }), { maxLength: 2 }),
    system: fc.option(nonBlank, { nil: undefined }),
    thinking: fc.option(nonBlank, { nil: undefined }),
    texts: fc.array(nonBlank, { maxLength: 2 }),
    calls: fc.array(fc.record({ name: word, input: json }), { maxLength: 2 }),
  })

/** A history in which every call is answered in the next user message and every message says something. */
const historyArb = (images: boolean) =>
  fc.array(exchangeArb(images), { minLength: 1, maxLength: 4 }).map((exchanges) => {
    const messages: Message[] = []
    let open: string[] = []
    exchanges.forEach((x, i) => {
      const results: ToolResultBlock[] = open.map((id, k) => {
        const r = x.results[k] ?? { text: "done", isError: false }
        return { type: "tool_result", toolUseId: id, content: r.text, ...(r.isError ? { isError: true } : {}) }
      })
      messages.push({ id: `u${i}`, role: "user", ts: 1, content: [...results, ...x.userParts] })
      if (x.system) messages.push({ id: `s${i}`, role: "system", ts: 1, content: [{ type: "text", text: x.system }] })
      const calls = x.calls.map((c, k) => ({
        type: "tool_use" as const,
        id: `call_${i}_${k}`,
        name: c.name,
        input: c.input,
      }))
      const texts = x.texts.map((text) => ({ type: "text" as const, text }))
      if (texts.length === 0 && calls.length === 0) texts.push({ type: "text", text: "ok" })
      const thinking: Block[] = x.thinking ? [{ type: "thinking", text: x.thinking }] : []
      messages.push({ id: `a${i}`, role: "assistant", ts: 1, content: [...thinking, ...texts, ...calls] })
      open = calls.map((c) => c.id)
    })
    if (open.length > 0)
      messages.push({
        id: "last",
        role: "user",
        ts: 1,
        content: open.map((id) => ({ type: "tool_result", toolUseId: id, content: "done" })),
      })
    return messages
  })

const efforts = fc.constantFrom("low" as const, "medium" as const, "high" as const)

const optionsArb = (tools: readonly EnabledTool[], flavour: Flavour): fc.Arbitrary<EncodeOptions> => {
  const arbs: Record<string, fc.Arbitrary<unknown>> = {
    maxTokens: fc.integer({ min: 1, max: 100_000 }),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
    stream: fc.boolean(),
  }
  if (tools.length > 0) {
    arbs.toolChoice = fc.oneof(
      fc.constantFrom("auto" as const, "none" as const, "required" as const),
      fc.constantFrom(...tools.map((t) => ({ name: t.name }))),
    )
    arbs.parallelToolCalls = fc.boolean()
  }
  // DeepSeek takes the thinking switch and no cache hints; gpt-4.1 (no reasoning) takes cache hints.
  if (flavour === "deepseek") arbs.thinking = fc.oneof(fc.constant(false), fc.record({ effort: efforts }))
  else
    arbs.cache = fc.record(
      { sessionId: fc.string({ minLength: 1, maxLength: 8 }), retention: fc.constantFrom("in_memory", "24h") },
      { requiredKeys: ["sessionId"] },
    )
  return fc.record(arbs, { requiredKeys: ["maxTokens"] }) as fc.Arbitrary<EncodeOptions>
}

/** The history as the Chat wire carries it (see the file comment). */
function wireView(messages: readonly Message[], flavour: Flavour): Omit<Message, "id" | "ts">[] {
  const out: Omit<Message, "id" | "ts">[] = []
  // DeepSeek keeps reasoning in turns (user text to user text) where the model called tools.
  const keepThinking = new Set<number>()
  if (flavour === "deepseek") {
    let turn: number[] = []
    const close = () => {
      const calls = turn.some((i) => messages[i]!.content.some((b) => b.type === "tool_use"))
      if (calls) for (const i of turn) keepThinking.add(i)
      turn = []
    }
    messages.forEach((m, i) => {
      if (m.role === "user" && m.content.some((b) => b.type !== "tool_result")) close()
      if (m.role === "assistant") turn.push(i)
    })
    close()
  }
  messages.forEach((m, i) => {
    const joined = (blocks: Block[]) => {
      const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("\n\n")
      return text === "" ? [] : [{ type: "text" as const, text }]
    }
    if (m.role === "system") out.push({ role: "system", content: joined(m.content) })
    else if (m.role === "user") {
      const results = m.content.filter((b) => b.type === "tool_result")
      const rest = m.content.filter((b) => b.type !== "tool_result")
      const parts = rest.some((b) => b.type === "image") ? rest : joined(rest)
      out.push({ role: "user", content: [...results, ...parts] })
    } else {
      const thinking = keepThinking.has(i) ? m.content.filter((b) => b.type === "thinking") : []
      out.push({
        role: "assistant",
        content: [...thinking, ...joined(m.content), ...m.content.filter((b) => b.type === "tool_use")],
      })
    }
  })
  return out
}

const strip = (messages: readonly Message[]) => messages.map(({ id: _i, ts: _t, ...rest }) => rest)

function roundTrip(flavour: Flavour, images: boolean) {
  const model = fixtureModel(flavour)
  const encode = flavour === "deepseek" ? encodeDeepSeek : encodeOpenAIChat
  const inputArb = fc
    .record({ text: fc.string({ maxLength: 20 }), tools: toolsArb, messages: historyArb(images) })
    .chain((x) => optionsArb(x.tools, flavour).map((options) => ({ ...x, options })))
  fc.assert(
    fc.property(inputArb, ({ text, tools, messages, options }) => {
      const input: EncodeInput = { prompt: { text, tools }, messages, model, options }
      const decoded = decodeChatRequest(encode(input).body, flavour)
      expect(decoded.model).toBe(model.id)
      expect(decoded.prompt.text).toBe(text)
      expect(decoded.prompt.tools).toEqual(tools)
      expect(strip(decoded.messages)).toEqual(wireView(messages, flavour))
      expect(decoded.messages.map((m) => [m.id, m.ts])).toEqual(decoded.messages.map((_, i) => [`m${i + 1}`, 0]))
      const { compat: _c, ...read } = decoded.options
      expect(read).toEqual({ stream: true, ...options })
      expect(decoded.unmodeled).toEqual([])
    }),
    { numRuns: 150 },
  )
}

describe("Chat request decoding is the inverse of encoding", () => {
  it("OpenAI Chat: history (images included), system prompt and messages, tools, tool choice, limits, cache", () => {
    roundTrip("openai-chat", true)
  })

  it("DeepSeek: history, reasoning in tool-calling turns, the thinking switch and effort", () => {
    roundTrip("deepseek", false)
  })

  it("OpenAI reasoning models: the effort (and thinking off as `none`) and the developer role come back", () => {
    const model = {
      ...fixtureModel("openai-chat"),
      id: "o3",
      capabilities: { nativeTools: true, images: true, thinking: true },
    }
    for (const thinking of [{ effort: "high" as const }, false as const]) {
      const body = encodeOpenAIChat({
        prompt: { text: "Be brief.", tools: [] },
        messages: [{ id: "x", role: "user", ts: 1, content: [{ type: "text", text: "hi" }] }],
        model: { ...model, thinking: { control: "effort", canDisable: true, efforts: ["low", "medium", "high"] } },
        options: { thinking },
      }).body
      const decoded = decodeChatRequest(body)
      expect(decoded.options.thinking).toEqual(thinking)
      expect(decoded.options.compat?.systemRole).toBe("developer")
      expect(decoded.prompt.text).toBe("Be brief.")
    }
  })
})
