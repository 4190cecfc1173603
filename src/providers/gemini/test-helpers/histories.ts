// Arbitraries of the Gemini request round trip: tools with schemas of every shape the subset says exactly, and
// well-formed histories, with what decoding their encoding must give back.
import fc from "fast-check"
import type { Message } from "../../../history/message.js"
import type { EnabledTool } from "../../../tools/spec.js"

/** A JSON Schema in the shapes tools use; every one must come back as it went (subset or JSON Schema field). */
const leaf = fc.oneof(
  fc.constantFrom("string", "number", "integer", "boolean").map((type) => ({ type })),
  fc.constantFrom("string", "integer").map((type) => ({ type: [type, "null"] })),
  fc.record({ type: fc.constant("string"), enum: fc.uniqueArray(fc.constantFrom("a", "b", "c"), { minLength: 1 }) }),
  fc.record({ type: fc.constant("string"), description: fc.constantFrom("A path.", "Text") }),
  fc.record({ type: fc.constant("string"), minLength: fc.nat(5), format: fc.constantFrom("date-time", "uri") }),
)
const schema = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: "small" }, leaf, tie("object"), tie("array")),
  array: fc.record({ type: fc.constant("array"), items: tie("node") }),
  object: fc
    .dictionary(fc.constantFrom("path", "content", "line", "x y"), tie("node"), { maxKeys: 3 })
    .chain((properties) =>
      fc.subarray(Object.keys(properties)).map((required) => ({ type: "object", properties, required })),
    ),
}))
export const toolsArb = fc
  .uniqueArray(fc.record({ name: fc.constantFrom("read", "write", "run", "list"), parameters: schema.object }), {
    selector: (t) => t.name,
    maxLength: 3,
  })
  .map((list) =>
    list.map(
      (t): EnabledTool => ({
        id: t.name,
        kind: "client",
        name: t.name,
        description: `The ${t.name} tool.`,
        snippet: "",
        guidelines: [],
        parameters: t.parameters as EnabledTool["parameters"],
        examples: {},
      }),
    ),
  )

const word = fc.constantFrom("alpha", "beta gamma", "delta\n", "zeta")
const image = fc
  .constantFrom("aW1nMQ==", "aW1nMg==")
  .map((data) => ({ type: "image" as const, mediaType: "image/png", data }))

/** Well-formed histories: user and model turns alternate, every call is answered in the next user turn. */
export const historyArb = fc
  .array(
    fc.record({
      system: fc.option(word, { nil: undefined }),
      user: fc.array(
        fc.oneof(
          word.map((text) => ({ type: "text" as const, text })),
          image,
        ),
        { minLength: 1, maxLength: 3 },
      ),
      thinking: fc.option(fc.record({ text: word, signature: fc.constantFrom("c2ln", "c2lnMg==") }), {
        nil: undefined,
      }),
      text: fc.option(word, { nil: undefined }),
      calls: fc.array(
        fc.record({
          name: fc.constantFrom("read", "run"),
          input: fc.dictionary(fc.constantFrom("a", "b"), fc.oneof(fc.string({ maxLength: 4 }), fc.integer())),
          signature: fc.option(fc.constant("Y2FsbA=="), { nil: undefined }),
          result: word,
          isError: fc.boolean(),
        }),
        { maxLength: 3 },
      ),
    }),
    { minLength: 1, maxLength: 4 },
  )
  .map((turns) => {
    const messages: Message[] = []
    let calls = 0
    let pending: { id: string; result: string; isError: boolean }[] = []
    // A turn without a model answer leaves two user messages side by side; the encoder sends them as one content
    // (decoding cannot tell them apart), so the well-formed history holds them as one message.
    const add = (role: Message["role"], content: Message["content"]) => {
      const last = messages.at(-1)
      if (role === "user" && last?.role === "user") last.content = [...last.content, ...content]
      else messages.push({ id: `x${messages.length}`, role, content, ts: 5 })
    }
    for (const turn of turns) {
      const results = pending.map((p) => ({
        type: "tool_result" as const,
        toolUseId: p.id,
        content: p.result,
        isError: p.isError,
      }))
      // A system message cannot sit between a call and its results: it follows them (and the encoder merges the
      // user turns around it into one content, which decoding splits again at the reminder).
      if (turn.system === undefined) add("user", [...results, ...turn.user])
      else {
        if (results.length > 0) add("user", results)
        add("system", [{ type: "text", text: turn.system }])
        add("user", turn.user)
      }
      pending = []
      const content: Message["content"] = []
      if (turn.thinking) content.push({ type: "thinking", ...turn.thinking })
      if (turn.text !== undefined) content.push({ type: "text", text: turn.text })
      for (const call of turn.calls) {
        const id = `toolu_${calls++}`
        content.push({
          type: "tool_use",
          id,
          name: call.name,
          input: call.input,
          ...(call.signature ? { signature: call.signature } : {}),
        })
        pending.push({ id, result: call.result, isError: call.isError })
      }
      if (content.length > 0) add("assistant", content)
    }
    if (pending.length > 0)
      add(
        "user",
        pending.map((p) => ({ type: "tool_result" as const, toolUseId: p.id, content: p.result, isError: p.isError })),
      )
    return messages
  })

/**
 * What the Gemini wire keeps of a well-formed history, i.e. what decoding its encoding must give: messages
 * numbered m1…, ts 0; call ids renamed gemini_call_<n> in order (Gemini sends none); `isError: false` dropped;
 * a call turn that followed no text keeps its place. System messages come back as system messages.
 */
export function expectedMessages(messages: readonly Message[]): Message[] {
  const ids = new Map<string, string>()
  let n = 0
  return messages.map((m, i) => ({
    id: `m${i + 1}`,
    role: m.role,
    ts: 0,
    content: m.content.map((b) => {
      if (b.type === "tool_use") {
        ids.set(b.id, `gemini_call_${++n}`)
        return { ...b, id: ids.get(b.id)! }
      }
      if (b.type === "tool_result") {
        const { isError, ...rest } = b
        return { ...rest, toolUseId: ids.get(b.toolUseId)!, ...(isError ? { isError } : {}) }
      }
      return b
    }),
  }))
}
