import { describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { resolveModel } from "../models/resolve.js"
import { ANTHROPIC_MESSAGE_ROLES } from "./anthropic/request-shape.js"
import { encodeRequest } from "./encode.js"
import { OPENAI_CHAT_ROLES } from "./openai-chat/request-shape.js"
import { OPENAI_RESPONSES_ROLES } from "./openai-responses/request-shape.js"
import { partsText } from "./request-shape.js"

const model = (id: string) => resolveModel(id).model
const SYSTEM = "Mode: act. Carry out the plan."

const history: Message[] = [
  { id: "u1", role: "user", content: [{ type: "text", text: "Plan the fix." }], ts: 1 },
  {
    id: "a1",
    role: "assistant",
    content: [{ type: "tool_use", id: "call_1", name: "read_file", input: { path: "a" } }],
    ts: 2,
  },
  { id: "s0", role: "system", content: [{ type: "text", text: "Between call and result." }], ts: 3 },
  { id: "r1", role: "user", content: [{ type: "tool_result", toolUseId: "call_1", content: "hello" }], ts: 4 },
  { id: "s1", role: "system", content: [{ type: "text", text: SYSTEM }], ts: 5 },
]
const prompt = {
  text: "You are an agent.",
  tools: [{ name: "read_file", description: "Read", parameters: { type: "object", properties: {} } }],
} as never

/** Reads the system messages back from a body with the request-side role tables (what a decoder does). */
function systemTexts(messages: readonly Record<string, unknown>[], roles: Record<string, string>): string[] {
  return messages.filter((m) => roles[String(m.role)] === "system").map((m) => partsText(m.content))
}

describe("mid-conversation system messages on the wire", () => {
  it("Anthropic: a system message after a user turn on a model that takes them; results stay right after calls", () => {
    const { body, diagnostics } = encodeRequest("anthropic", {
      prompt,
      messages: history,
      model: model("claude-opus-4-8"),
    })
    const roles = body.messages.map((m) => m.role)
    // Two system messages in a row become one.
    expect(roles).toEqual(["user", "assistant", "user", "system"])
    expect(systemTexts(body.messages as never, ANTHROPIC_MESSAGE_ROLES)).toEqual([
      `Between call and result.\n${SYSTEM}`,
    ])
    expect(diagnostics.map((d) => d.code)).toContain("system-message-moved")
  })

  it("Anthropic: a model without system messages gets a <system-reminder> joined to the user turn", () => {
    const { body, diagnostics } = encodeRequest("anthropic", {
      prompt,
      messages: history,
      model: model("claude-sonnet-4-5"),
    })
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
    const last = JSON.stringify(body.messages[2]!.content)
    expect(last).toContain(`<system-reminder>\\n${SYSTEM}\\n</system-reminder>`)
    expect(last.indexOf("tool_result")).toBeLessThan(last.indexOf("system-reminder"))
    expect(diagnostics.map((d) => d.code)).toContain("system-message-inlined")
  })

  it("Anthropic: a system message after an assistant turn is inlined even where the model takes them", () => {
    const messages: Message[] = [
      { id: "u", role: "user", content: [{ type: "text", text: "Hi" }], ts: 1 },
      { id: "a", role: "assistant", content: [{ type: "text", text: "Hello" }], ts: 2 },
      { id: "s", role: "system", content: [{ type: "text", text: SYSTEM }], ts: 3 },
    ]
    const { body } = encodeRequest("anthropic", { prompt, messages, model: model("claude-opus-4-8") })
    expect(body.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
  })

  it("OpenAI Chat: a system or developer message where it stands", () => {
    for (const [id, role] of [
      ["gpt-4.1", "system"],
      ["gpt-5", "developer"],
    ] as const) {
      const { body } = encodeRequest("openai-chat", { prompt, messages: history, model: model(id) })
      const last = body.messages.at(-1)!
      expect(last).toEqual({ role, content: SYSTEM })
      expect(systemTexts(body.messages as never, OPENAI_CHAT_ROLES)).toEqual([
        "You are an agent.",
        "Between call and result.",
        SYSTEM,
      ])
      // The tool message answers the call directly.
      const call = body.messages.findIndex((m) => m.role === "assistant")
      expect(body.messages[call + 1]!.role).toBe("tool")
    }
  })

  it("OpenAI Responses: a developer message item", () => {
    const { body } = encodeRequest("openai-responses", { prompt, messages: history, model: model("gpt-5") })
    const items = body.input as unknown as Record<string, unknown>[]
    expect(items.at(-1)).toEqual({
      type: "message",
      role: "developer",
      content: [{ type: "input_text", text: SYSTEM }],
    })
    expect(systemTexts(items, OPENAI_RESPONSES_ROLES)).toEqual(["Between call and result.", SYSTEM])
    const call = items.findIndex((i) => i.type === "function_call")
    expect(items[call + 1]!.type).toBe("function_call_output")
  })

  it("Gemini: tagged text in the user turn, after the function responses", () => {
    const { body, diagnostics } = encodeRequest("gemini", { prompt, messages: history, model: model("gemini-2.5-pro") })
    expect(body.contents.map((c) => c.role)).toEqual(["user", "model", "user"])
    const parts = body.contents[2]!.parts!
    expect(parts[0]!.functionResponse).toBeDefined()
    expect(parts.slice(1).map((p) => p.text)).toEqual([
      "<system-reminder>\nBetween call and result.\n</system-reminder>",
      `<system-reminder>\n${SYSTEM}\n</system-reminder>`,
    ])
    expect(diagnostics.map((d) => d.code)).toContain("system-message-inlined")
  })

  it("keeps only text in a system message: results become their text, images go", () => {
    const messages: Message[] = [
      { id: "u", role: "user", content: [{ type: "text", text: "Hi" }], ts: 1 },
      {
        id: "s",
        role: "system",
        content: [
          { type: "text", text: SYSTEM },
          { type: "image", mediaType: "image/png", data: "AA==" },
          { type: "tool_result", toolUseId: "x", content: "out" },
        ],
        ts: 2,
      },
    ]
    const { body, diagnostics } = encodeRequest("openai-chat", { prompt, messages, model: model("gpt-4.1") })
    expect(body.messages.at(-1)).toEqual({ role: "system", content: `${SYSTEM}\n\nResult of tool call x:\nout` })
    expect(diagnostics.map((d) => d.code)).toEqual(
      expect.arrayContaining(["system-block-as-text", "system-block-dropped"]),
    )
  })
})
