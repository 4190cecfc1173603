/**
 * "Every field a client sends is carried or named": for bodies holding every top-level field the official SDK types
 * know (and any mix of them), each client format's request decoder and each upstream's encoder together either carry
 * a field into the upstream's body (read back by the upstream format's own decoder) or name it in what the gateway
 * sends as `x-promptline-dropped`. And nothing carried is named.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { choiceOffered, isPlaceholderTool, uncarriedPaths } from "./carried.js"
import { deepSeekReasoningRule } from "./deepseek/encode.js"
import { formatModule } from "./formats.js"
import {
  ANTHROPIC_FIELDS,
  bodies,
  CHAT_FIELDS,
  fullBody,
  GEMINI_FIELDS,
  GENERATION_FIELDS,
  PLACEHOLDER_DESCRIPTION,
  RESPONSES_FIELDS,
} from "./test-helpers/client-bodies.js"
import type { DecodedRequest, RequestPart } from "./types.js"

/** Each client format: its fields, the required ones, and the fields carried by other means than options. */
const CLIENTS = {
  anthropic: {
    fields: ANTHROPIC_FIELDS,
    required: ["model", "max_tokens", "messages"],
    // The prompt, the history, the tools (checked one by one below), streaming and prompt-cache hints.
    structural: ["model", "messages", "system", "tools", "stream", "cache_control"],
  },
  "openai-chat": {
    fields: CHAT_FIELDS,
    required: ["model", "messages"],
    structural: ["model", "messages", "tools", "functions", "stream", "stream_options", "n"].concat(
      ["prompt_cache_key", "prompt_cache_retention"], // prompt-cache hints
    ),
  },
  "openai-responses": {
    fields: RESPONSES_FIELDS,
    required: ["model", "input"],
    structural: ["model", "input", "instructions", "tools", "stream", "include", "prompt_cache_key"].concat([
      "prompt_cache_retention",
    ]),
  },
  gemini: { fields: GEMINI_FIELDS, required: ["contents"], structural: ["contents", "systemInstruction", "tools"] },
} as const

type ClientFormat = keyof typeof CLIENTS

/** Upstreams: each format with a model that thinks and one that does not (or cannot turn it off). */
const UPSTREAMS: [WireFormat, ModelInfo][] = (
  [
    ["anthropic", "claude-sonnet-4-5", "anthropic"],
    ["anthropic", "claude-3-5-haiku-latest", "anthropic"],
    ["anthropic", "claude-fable-5", "anthropic"],
    ["openai-chat", "gpt-5", "openai"],
    ["openai-chat", "gpt-4.1", "openai"],
    ["openai-chat", "qwen3-coder", "ollama"],
    ["openai-responses", "gpt-5", "openai"],
    ["openai-responses", "gpt-4.1", "openai"],
    ["gemini", "gemini-2.5-flash", "gemini"],
    ["gemini", "gemini-3-pro-preview", "gemini"],
    ["deepseek", "deepseek-chat", "deepseek"],
    ["deepseek", "deepseek-r1", "deepseek"],
  ] as const
).map(([format, id, provider]) => [format, resolveModel(id, { provider }).model])

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Whether the upstream's body, read back by its own format's decoder, still holds a part of the client's request. */
function survives(
  part: RequestPart,
  sent: DecodedRequest,
  back: DecodedRequest,
  [upstream, model]: [WireFormat, ModelInfo],
): boolean {
  const [a, b] = [sent.options, back.options]
  switch (part) {
    case "thinking":
      // DeepSeek R1 takes no thinking setting at all (it always thinks, as much as it likes).
      if (upstream === "deepseek" && deepSeekReasoningRule(model) === "strip-and-merge") return false
      if (a.thinking === false)
        return b.thinking === false || (b.thinking === undefined && !model.capabilities.thinking)
      if (a.thinking === undefined || b.thinking === undefined || b.thinking === false) return false
      // An effort or a budget still asks for some amount of thinking (fitted to what the model takes).
      return a.thinking.effort === undefined || b.thinking.effort !== undefined || b.thinking.budgetTokens !== undefined
    case "toolChoice": {
      const offered = back.prompt.tools
      if (a.toolChoice === "auto" || (a.toolChoice === "none" && offered.length === 0))
        return b.toolChoice !== "required"
      return same(a.toolChoice, b.toolChoice)
    }
    case "parallelToolCalls":
      // With no call allowed, or none possible, the setting has nothing to govern.
      if (a.toolChoice === "none" || back.prompt.tools.length === 0) return true
      return (
        a.parallelToolCalls === b.parallelToolCalls ||
        (a.parallelToolCalls === true && b.parallelToolCalls === undefined) ||
        back.prompt.tools.length === 0
      )
    case "store":
      return a.store !== true || b.store === true
    case "responseFormat":
      return b.responseFormat !== undefined
    case "responseFormat.schema":
      return (
        a.responseFormat?.type === "json-schema" &&
        b.responseFormat?.type === "json-schema" &&
        same(a.responseFormat.schema, b.responseFormat.schema)
      )
    case "nativeToolSearch":
      // A search over no deferred tools has nothing to find.
      return same(a.nativeToolSearch, b.nativeToolSearch) || (sent.prompt.deferredTools ?? []).length === 0
    case "deferredTools":
      return same(
        sent.prompt.deferredTools?.map((t) => t.name),
        back.prompt.deferredTools?.map((t) => t.name),
      )
    case "contextManagement.clearToolUses":
    case "contextManagement.clearThinking":
    case "contextManagement.compaction": {
      const key = part.slice("contextManagement.".length) as "clearToolUses"
      return same(a.contextManagement?.[key], b.contextManagement?.[key])
    }
    default:
      return same(a[part], b[part])
  }
}

/** Runs one client body through one upstream and checks that everything is carried or named. */
function check(client: ClientFormat, body: Record<string, unknown>, upstream: WireFormat, model: ModelInfo): void {
  const route = { model: "client-model", stream: true }
  const sent = formatModule(client).decodeRequest(structuredClone(body), route)
  const encoded = formatModule(upstream).encode({
    prompt: sent.prompt,
    messages: sent.messages,
    model,
    options: { ...sent.options, stream: true },
  })
  const uncarried = encoded.uncarried ?? []
  const dropped = [...sent.unmodeled, ...uncarriedPaths(uncarried, sent.sources)]
  const back = formatModule(upstream).decodeRequest(JSON.parse(JSON.stringify(encoded.body)), {
    model: model.id,
    stream: true,
  })
  const at = `${client} → ${upstream} (${model.id})`
  const under = (field: string) => (path: string) =>
    path === field || path.startsWith(`${field}.`) || path.startsWith(`${field}[`)

  // 1. Every field is carried as an option, carried by other means, or named: none is read into nothing.
  const read = Object.values(sent.sources).flat()
  for (const field of Object.keys(body)) {
    const empty = same(body[field], {})
    const accounted =
      empty ||
      (CLIENTS[client].structural as readonly string[]).includes(field) ||
      read.some(under(field)) ||
      dropped.some(under(field))
    expect(accounted, `${at}: ${field} is neither carried nor named`).toBe(true)
  }
  // 2. Every modeled part reaches the upstream's body, or the paths it came from are named.
  for (const part of Object.keys(sent.sources) as RequestPart[]) {
    const kept = survives(part, sent, back, [upstream, model])
    if (!kept) for (const path of sent.sources[part]!) expect(dropped, `${at}: ${part} lost`).toContain(path)
    // And nothing the upstream got is named as dropped.
    if (kept) expect(uncarried, `${at}: ${part} carried yet named`).not.toContain(part)
  }
  // 3. A deferred tool or a placeholder is never offered as an ordinary tool, and every client tool is accounted for.
  const offered = back.prompt.tools.map((t) => t.name)
  for (const tool of sent.prompt.deferredTools ?? []) expect(offered, at).not.toContain(tool.name)
  expect(back.prompt.tools.some(isPlaceholderTool), at).toBe(false)
  for (const tool of sent.prompt.tools) expect(offered, at).toContain(tool.name)
}

describe("every field a client sends is carried or named", () => {
  for (const client of Object.keys(CLIENTS) as ClientFormat[]) {
    const { fields, required } = CLIENTS[client]
    it(`${client}: a body with every field the SDK types know, through every upstream`, () => {
      const body = fullBody(fields)
      if (client === "gemini") body.generationConfig = fullBody(GENERATION_FIELDS)
      for (const [upstream, model] of UPSTREAMS) check(client, body, upstream, model)
    })

    it(`${client}: any mix of fields and values, through every upstream (property)`, () => {
      fc.assert(
        fc.property(bodies(fields, required), fc.constantFrom(...UPSTREAMS), (body, [upstream, model]) => {
          check(client, body, upstream, model)
        }),
        { numRuns: 300 },
      )
    })
  }
})

describe("naming what an upstream cannot carry", () => {
  it("names each part by the client's paths, each once, and a part without sources by itself", () => {
    const sources = { thinking: ["thinking", "output_config.effort"], deferredTools: ["tools[2]", "tools[5]"] }
    expect(uncarriedPaths(["thinking", "deferredTools", "thinking", "store"], sources)).toEqual([
      "thinking",
      "output_config.effort",
      "tools[2]",
      "tools[5]",
      "store",
    ])
  })

  it("knows a placeholder by a sentence saying never to call it, not by a warning about how to use a real tool", () => {
    const tool = (description: string) => ({ description })
    expect(isPlaceholderTool(tool(PLACEHOLDER_DESCRIPTION))).toBe(true)
    expect(isPlaceholderTool(tool("Do not call this tool."))).toBe(true)
    expect(isPlaceholderTool(tool("Internal.\nThis tool should never be called!"))).toBe(true)
    expect(isPlaceholderTool(tool("Runs a command. Do NOT use this tool for file operations."))).toBe(false)
    expect(isPlaceholderTool(tool("Never call this tool twice in a row."))).toBe(false)
    expect(isPlaceholderTool(tool("Placeholder tool description 8."))).toBe(false)
  })

  it("offers a tool choice only with the tools it needs", () => {
    const tools = [{ name: "read" }]
    expect([
      choiceOffered("auto", []),
      choiceOffered("none", []),
      choiceOffered("required", []),
      choiceOffered("required", tools),
      choiceOffered({ name: "read" }, tools),
      choiceOffered({ name: "find" }, tools),
    ]).toEqual([true, true, false, true, true, false])
  })
})
