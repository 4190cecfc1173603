import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { fixtureModel } from "../../../test/fixtures/providers/requests/load.js"
import type { Block, Message } from "../../history/message.js"
import type { ModelInfo } from "../../models/types.js"
import type { EnabledTool } from "../../tools/spec.js"
import type { CacheBreakpoint, CacheSettings } from "../cache.js"
import type { ContextManagementOptions } from "../context-management.js"
import type { EncodeOptions } from "../types.js"
import { encodeAnthropic } from "./encode.js"
import { decodeAnthropicRequest } from "./request-decode.js"
import { anthropicClientTool as clientTool } from "./tools.js"

/**
 * decodeRequest(encode(x)) gives x back, for well-formed histories (user first, roles alternating, every call
 * answered in the next user turn, in call order, a system message only right after a user turn) and for the
 * options the encoder keeps. "Equal" means, precisely:
 * - messages: equal after renumbering ids to m1, m2, … and ts to 0 (the body has neither);
 * - system text and tools: equal (tools as client tools: id = name, kind `client`, the schema as it was);
 * - options: maxTokens, stream, toolChoice, parallelToolCalls and thinking equal, except that `none` carries no
 *   parallel setting (the API has no field for it), parallel calls turned off without a choice read back with
 *   the choice `auto` (the field that turns them off is inside `tool_choice`), and thinking is generated only where the encoder keeps it;
 * - not generated, because the body cannot tell them apart: a context message (it becomes the first user
 *   message's first text), the XML dialect (its tools are system text), temperature (the encoder does not send it);
 * - cache: the settings the encoder's *placed* breakpoints describe (the encoder leaves out breakpoints on a
 *   prefix too small to cache), `false` when none was placed.
 */

const model: ModelInfo = {
  ...fixtureModel("anthropic"),
  capabilities: { ...fixtureModel("anthropic").capabilities, systemMessages: true },
  cache: { minTokens: 1, maxBreakpoints: 4, ttls: ["5m", "1h"] },
}

/** Text the encoder keeps (it drops blank text). */
const words = fc.stringMatching(/^[a-zA-Z0-9 .,:'"\\{}<>\n-]{0,40}$/).map((s) => `w${s}`)
const image = fc.record({
  type: fc.constant("image" as const),
  mediaType: fc.constantFrom("image/png", "image/jpeg", "image/gif", "image/webp"),
  data: fc.base64String({ minLength: 4, maxLength: 24 }),
})
const textBlock = words.map((text): Block => ({ type: "text", text }))
const input = fc.dictionary(fc.stringMatching(/^[a-z]{1,6}$/), fc.jsonValue(), { maxKeys: 3 })
const toolNames = ["read_file", "execute_command", "search"]

/** One exchange: a user turn (answering the previous calls), maybe a system message, an assistant turn. */
const exchange = fc.record({
  userBlocks: fc.array(fc.oneof(textBlock, image), { minLength: 1, maxLength: 3 }),
  results: fc.array(
    fc.record({
      content: fc.oneof(
        words,
        fc.array(
          fc.oneof(
            textBlock.map((b) => b as { type: "text"; text: string }),
            image,
          ),
          { minLength: 1, maxLength: 2 },
        ),
      ),
      isError: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
  system: fc.option(words, { nil: undefined }),
  thinking: fc.option(fc.record({ text: words, signature: fc.base64String({ minLength: 4, maxLength: 16 }) }), {
    nil: undefined,
  }),
  redacted: fc.boolean(),
  compaction: fc.option(
    fc.record({
      summary: fc.option(words, { nil: undefined }),
      encrypted: fc.option(fc.base64String({ minLength: 4, maxLength: 24 }), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  text: fc.option(words, { nil: undefined }),
  calls: fc.array(fc.record({ name: fc.constantFrom(...toolNames), input }), { maxLength: 3 }),
})

type Exchange = typeof exchange extends fc.Arbitrary<infer T> ? T : never

function history(exchanges: Exchange[], last: Block[]): Message[] {
  const messages: Message[] = []
  let open: string[] = []
  const push = (role: Message["role"], content: Block[]) =>
    messages.push({ id: `x${messages.length}`, role, content, ts: 1234 })
  exchanges.forEach((x, i) => {
    const results: Block[] = open.map((id, k) => {
      const r = x.results[k] ?? { content: "done", isError: false }
      return { type: "tool_result", toolUseId: id, content: r.content, ...(r.isError ? { isError: true } : {}) }
    })
    push("user", [...results, ...x.userBlocks])
    if (x.system !== undefined) push("system", [{ type: "text", text: x.system }])
    const assistant: Block[] = []
    // A tool-use turn starts with thinking (the API's rule when thinking is on); other turns may too.
    if (x.thinking || x.calls.length > 0) {
      const t = x.thinking ?? { text: "plan", signature: "c2ln" }
      assistant.push({ type: "thinking", text: t.text, signature: t.signature })
    }
    if (x.redacted) assistant.push({ type: "redacted_thinking", data: "ZW5j" })
    if (x.compaction) {
      const { summary, encrypted } = x.compaction
      assistant.push({
        type: "compaction",
        format: "anthropic",
        ...(encrypted !== undefined
          ? { payload: JSON.stringify({ encrypted_content: encrypted, signature: "c2ln" }) }
          : {}),
        ...(summary !== undefined ? { summary } : {}),
      })
    }
    if (x.text !== undefined) assistant.push({ type: "text", text: x.text })
    open = x.calls.map((_, k) => `toolu_${i}_${k}`)
    x.calls.forEach((c, k) => {
      assistant.push({ type: "tool_use", id: open[k]!, name: c.name, input: c.input })
    })
    if (assistant.length === 0) assistant.push({ type: "text", text: "ok" })
    push("assistant", assistant)
  })
  push("user", [...open.map((id): Block => ({ type: "tool_result", toolUseId: id, content: "final" })), ...last])
  return messages
}

const tools: EnabledTool[] = toolNames.map((name) =>
  clientTool(name, `The ${name} tool.`, {
    type: "object",
    properties: { path: { type: "string", description: "A path." } },
    required: ["path"],
  }),
)

const cacheArb: fc.Arbitrary<CacheSettings | false> = fc.oneof(
  fc.constant(false as const),
  fc.record({
    ttl: fc.constantFrom("5m" as const, "1h" as const),
    breakpoints: fc.record({ tools: fc.boolean(), system: fc.boolean(), userMessages: fc.nat(2) }),
  }),
)

/** A setting given as `true` or as a non-empty object (an empty object reads back as `true`). */
const orTrue = <T extends object>(arb: fc.Arbitrary<T>) =>
  fc.oneof(
    fc.constant(true as const),
    arb.filter((o) => Object.keys(o).length > 0),
  )

const contextManagementArb: fc.Arbitrary<ContextManagementOptions> = fc
  .record(
    {
      clearToolUses: orTrue(
        fc.record(
          {
            trigger: fc.integer({ min: 1, max: 500_000 }),
            keep: fc.nat(10),
            clearAtLeast: fc.integer({ min: 1, max: 50_000 }),
            excludeTools: fc.array(fc.constantFrom(...toolNames), { maxLength: 2 }),
            clearToolInputs: fc.oneof(fc.boolean(), fc.array(fc.constantFrom(...toolNames), { maxLength: 2 })),
          },
          { requiredKeys: [] },
        ),
      ),
      clearThinking: orTrue(fc.record({ keep: fc.oneof(fc.constant("all" as const), fc.integer({ min: 1, max: 5 })) })),
      compaction: orTrue(
        fc.record(
          {
            trigger: fc.integer({ min: 50_000, max: 500_000 }),
            instructions: words,
            pauseAfterCompaction: fc.boolean(),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  )
  .filter((o) => Object.keys(o).length > 0)

const optionsArb: fc.Arbitrary<EncodeOptions> = fc
  .record({
    maxTokens: fc.integer({ min: 2048, max: 64000 }),
    stream: fc.boolean(),
    toolChoice: fc.option(fc.constantFrom("auto" as const, "none" as const, "required" as const, { name: "search" }), {
      nil: undefined,
    }),
    parallelToolCalls: fc.option(fc.constant(false), { nil: undefined }),
    thinking: fc.option(
      fc.oneof(
        fc.constant(false as const),
        fc.record({ budgetTokens: fc.integer({ min: 1024, max: 2047 }) }),
        fc.record({
          effort: fc.constantFrom("low" as const, "medium" as const, "high" as const, "xhigh" as const, "max" as const),
        }),
        fc.constant({}),
      ),
      { nil: undefined },
    ),
    cache: cacheArb,
    contextManagement: fc.option(contextManagementArb, { nil: undefined }),
  })
  .map((o) => {
    const out: EncodeOptions = { maxTokens: o.maxTokens, stream: o.stream, cache: o.cache }
    if (o.contextManagement !== undefined) out.contextManagement = o.contextManagement
    if (o.toolChoice !== undefined) out.toolChoice = o.toolChoice
    if (o.parallelToolCalls !== undefined) out.parallelToolCalls = o.parallelToolCalls
    const forced = o.toolChoice === "required" || typeof o.toolChoice === "object"
    // Anthropic refuses thinking with a forced tool; the encoder turns it off, so it is not generated there.
    if (o.thinking !== undefined && !(forced && o.thinking !== false)) out.thinking = o.thinking
    return out
  })

/** The cache settings the placed breakpoints of an encoded body describe. */
function placedSettings(breakpoints: readonly CacheBreakpoint[]): CacheSettings | false {
  const placed = breakpoints.filter((b) => b.placed)
  if (placed.length === 0) return false
  return {
    ttl: placed[0]!.ttl,
    breakpoints: {
      tools: placed.some((b) => b.target === "tools"),
      system: placed.some((b) => b.target === "system"),
      userMessages: new Set(placed.filter((b) => b.target === "message").map((b) => b.messageIndex)).size,
    },
  }
}

describe("Anthropic request decoding: decodeRequest(encode(x)) = x", () => {
  it("gives back the history, system prompt, tools and options the encoder keeps", () => {
    // What the generated cases covered: the property says little if these stay at zero.
    const seen = { placed: 0, thinking: 0, budget: 0, system: 0, resultImages: 0, compaction: 0, managed: 0 }
    fc.assert(
      fc.property(
        fc.array(exchange, { maxLength: 4 }),
        fc.array(fc.oneof(textBlock, image), { minLength: 1, maxLength: 2 }),
        words,
        fc.boolean(),
        optionsArb,
        (exchanges, last, system, withTools, options) => {
          const messages = history(exchanges, last)
          const prompt = { text: system, tools: withTools ? tools : [] }
          const encoded = encodeAnthropic({ prompt, messages, model, options })
          const decoded = decodeAnthropicRequest(JSON.parse(JSON.stringify(encoded.body)))

          expect(decoded.model).toBe(model.id)
          expect(decoded.messages).toEqual(messages.map((m, i) => ({ ...m, id: `m${i + 1}`, ts: 0 })))
          expect(decoded.prompt.text).toBe(system)
          expect(decoded.prompt.tools).toEqual(prompt.tools)
          expect(decoded.unmodeled).toEqual([])

          const expected: EncodeOptions = { ...options, cache: placedSettings(encoded.breakpoints) }
          if (!withTools) {
            delete expected.toolChoice
            delete expected.parallelToolCalls
          }
          if (expected.toolChoice === "none") delete expected.parallelToolCalls
          // Parallel calls are turned off inside tool_choice, which then names the API's default, auto.
          if (expected.parallelToolCalls === false) expected.toolChoice ??= "auto"
          expect(decoded.options).toEqual(expected)

          if (expected.cache) seen.placed++
          if (expected.thinking) seen.thinking++
          if (expected.thinking && expected.thinking.budgetTokens !== undefined) seen.budget++
          if (messages.some((m) => m.role === "system")) seen.system++
          if (messages.some((m) => m.content.some((b) => b.type === "compaction"))) seen.compaction++
          if (expected.contextManagement) {
            seen.managed++
            const betas = encoded.headers?.["anthropic-beta"]?.split(",") ?? []
            expect(betas.includes("compact-2026-01-12")).toBe(expected.contextManagement.compaction !== undefined)
          }
          const results = messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result")
          if (results.some((b) => Array.isArray(b.content) && b.content.some((p) => p.type === "image")))
            seen.resultImages++
        },
      ),
      { numRuns: 200 },
    )
    for (const [what, count] of Object.entries(seen)) expect(count, what).toBeGreaterThan(5)
  })
})
