/**
 * Gemini `contents` read back as internal messages: user and model turns, their text, images, function calls
 * and responses (paired by id, or by order and name when the client sent none), thought parts and the thought
 * signatures on text and call parts. `<system-reminder>` text in a user turn (how the encoder sends a system
 * message) becomes a system message again.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Block, ImageBlock, Message, TextBlock } from "../../history/message.js"
import { SYSTEM_REMINDER_TAG } from "../system-message.js"
import { PLACEHOLDER_THOUGHT_SIGNATURE } from "./encode.js"
import { invalidRequest, keyIn, type RecordOf, recordAt, stringAt } from "./fields.js"
import { geminiField } from "./request-shape.js"

/** Part fields that ride along a part without changing what it is. */
const PART_EXTRAS = ["videoMetadata", "mediaResolution", "partMetadata"]

const REMINDER = new RegExp(`^<${SYSTEM_REMINDER_TAG}>\\n([\\s\\S]*)\\n</${SYSTEM_REMINDER_TAG}>$`)

/** Where the decoded history reports what it could not model and what it changed. */
export interface ContentsSink {
  unmodeled: string[]
  diagnostics: Diagnostic[]
}

/** A function call waiting for its response. */
interface PendingCall {
  id: string
  name: string
}

/** Reads `contents`; messages get ids m1, m2, … and ts 0. */
export function decodeContents(value: unknown, key: string, sink: ContentsSink): Message[] {
  if (!Array.isArray(value)) throw invalidRequest(key, "must be a list")
  if (value.length === 0) throw invalidRequest(key, "at least one content is required")
  const reader = new ContentsReader(sink)
  for (const [i, content] of value.entries()) reader.content(recordAt(content, `${key}[${i}]`), `${key}[${i}]`)
  if (reader.orphans > 0)
    sink.diagnostics.push(
      diagnostic(
        "warning",
        "function-response-unpaired",
        `${reader.orphans} function response${reader.orphans === 1 ? "" : "s"} without an id matched no earlier function call; each got an id of its own`,
      ),
    )
  return reader.messages
}

class ContentsReader {
  readonly messages: Message[] = []
  orphans = 0
  readonly #sink: ContentsSink
  readonly #pending: PendingCall[] = []
  #calls = 0

  constructor(sink: ContentsSink) {
    this.#sink = sink
  }

  content(content: RecordOf, path: string): void {
    const role = stringAt(content, "role", path) ?? "user"
    if (role !== "user" && role !== "model" && role !== "function")
      throw invalidRequest(`${path}.role`, 'must be "user" or "model"')
    const parts = content.parts
    if (!Array.isArray(parts) || parts.length === 0)
      throw invalidRequest(`${path}.parts`, "at least one part is required")
    if (role === "model") {
      const blocks = parts.flatMap((p, j) => this.#modelPart(recordAt(p, `${path}.parts[${j}]`), `${path}.parts[${j}]`))
      this.#push("assistant", joinThoughtPieces(blocks))
      return
    }
    let blocks: Block[] = []
    parts.forEach((p, j) => {
      const partPath = `${path}.parts[${j}]`
      const part = recordAt(p, partPath)
      const reminder = typeof part.text === "string" && part.thought !== true ? REMINDER.exec(part.text) : null
      if (reminder) {
        this.#push("user", blocks)
        blocks = []
        this.#push("system", [{ type: "text", text: reminder[1]! }])
        return
      }
      blocks.push(...this.#userPart(part, partPath))
    })
    this.#push("user", blocks)
  }

  #push(role: Message["role"], content: Block[]): void {
    if (content.length === 0) return
    this.messages.push({ id: `m${this.messages.length + 1}`, role, content, ts: 0 })
  }

  #userPart(part: RecordOf, path: string): Block[] {
    this.#extras(part, path)
    if (part.text !== undefined) return this.#text(part, path)
    const inline = geminiField(part, "inlineData")
    if (inline !== undefined) return this.#inline(inline, path, keyIn(part, "inlineData")!)
    const response = geminiField(part, "functionResponse")
    if (response !== undefined) return [this.#response(response, `${path}.${keyIn(part, "functionResponse")}`)]
    this.#sink.unmodeled.push(path)
    return []
  }

  #modelPart(part: RecordOf, path: string): Block[] {
    this.#extras(part, path)
    const raw = stringAt(part, "thoughtSignature", path)
    const signature = raw === PLACEHOLDER_THOUGHT_SIGNATURE ? undefined : raw
    const call = geminiField(part, "functionCall")
    if (call !== undefined) {
      const block = this.#call(call, `${path}.${keyIn(part, "functionCall")}`)
      return [signature ? { ...block, signature } : block]
    }
    const signed: Block[] = signature ? [{ type: "thinking", text: "", signature }] : []
    if (part.text !== undefined) {
      const text = this.#text(part, path)
      if (part.thought !== true) return [...signed, ...text]
      const thought = text[0]?.text ?? ""
      return [signature ? { type: "thinking", text: thought, signature } : { type: "thinking", text: thought }]
    }
    const inline = geminiField(part, "inlineData")
    if (inline !== undefined) return [...signed, ...this.#inline(inline, path, keyIn(part, "inlineData")!)]
    const kinds = Object.keys(part).filter((k) => !["thought", "thoughtSignature", "thought_signature"].includes(k))
    if (kinds.length > 0) this.#sink.unmodeled.push(path)
    return signed
  }

  #extras(part: RecordOf, path: string): void {
    for (const name of PART_EXTRAS) {
      const key = keyIn(part, name)
      if (key !== undefined) this.#sink.unmodeled.push(`${path}.${key}`)
    }
  }

  #text(part: RecordOf, path: string): TextBlock[] {
    if (typeof part.text !== "string") throw invalidRequest(`${path}.text`, "must be a string")
    return part.text === "" ? [] : [{ type: "text", text: part.text }]
  }

  #inline(value: unknown, path: string, key: string): ImageBlock[] {
    const inline = recordAt(value, `${path}.${key}`)
    const mediaType = stringAt(inline, "mimeType", `${path}.${key}`)
    const data = stringAt(inline, "data", `${path}.${key}`)
    if (mediaType === undefined) throw invalidRequest(`${path}.${key}.mimeType`, "is required")
    if (data === undefined) throw invalidRequest(`${path}.${key}.data`, "is required")
    if (!mediaType.startsWith("image/")) {
      this.#sink.unmodeled.push(path)
      return []
    }
    return [{ type: "image", mediaType, data }]
  }

  #call(value: unknown, path: string): Extract<Block, { type: "tool_use" }> {
    const call = recordAt(value, path)
    const name = stringAt(call, "name", path)
    if (name === undefined) throw invalidRequest(`${path}.name`, "is required")
    const args = call.args === undefined ? {} : recordAt(call.args, `${path}.args`)
    this.#calls++
    const id = stringAt(call, "id", path) ?? `gemini_call_${this.#calls}`
    this.#pending.push({ id, name })
    return { type: "tool_use", id, name, input: structuredClone(args) }
  }

  #response(value: unknown, path: string): Block {
    const response = recordAt(value, path)
    const name = stringAt(response, "name", path)
    if (name === undefined) throw invalidRequest(`${path}.name`, "is required")
    const id = stringAt(response, "id", path)
    const result = response.response === undefined ? {} : recordAt(response.response, `${path}.response`)
    const toolUseId = this.#pair(id, name)
    const isError = result.error !== undefined && result.output === undefined
    const chosen = isError ? result.error : result.output
    const text = typeof chosen === "string" ? chosen : JSON.stringify(chosen === undefined ? result : chosen)
    const images = this.#responseImages(response, path)
    const content = images.length > 0 ? [{ type: "text" as const, text }, ...images] : text
    return isError
      ? { type: "tool_result", toolUseId, content, isError: true }
      : { type: "tool_result", toolUseId, content }
  }

  /** Images a function response carries in its own `parts` (multimodal function responses). */
  #responseImages(response: RecordOf, path: string): ImageBlock[] {
    if (!Array.isArray(response.parts)) return []
    return response.parts.flatMap((p, k) => {
      const part = recordAt(p, `${path}.parts[${k}]`)
      const inline = geminiField(part, "inlineData")
      if (inline !== undefined) return this.#inline(inline, `${path}.parts[${k}]`, keyIn(part, "inlineData")!)
      this.#sink.unmodeled.push(`${path}.parts[${k}]`)
      return []
    })
  }

  /** The call a response answers: by id, else the first call of that name still waiting for its response. */
  #pair(id: string | undefined, name: string): string {
    const at = this.#pending.findIndex((c) => (id !== undefined ? c.id === id : c.name === name))
    if (at >= 0) return this.#pending.splice(at, 1)[0]!.id
    if (id !== undefined) return id
    this.orphans++
    this.#calls++
    return `gemini_call_${this.#calls}`
  }
}

/**
 * Thought parts in a row are one thought streamed in pieces (a client keeps the parts of each chunk): their
 * texts join as streamed, without a separator. A signed thought ends a run (its signature covers what it says).
 */
function joinThoughtPieces(blocks: Block[]): Block[] {
  const out: Block[] = []
  for (const block of blocks) {
    const last = out.at(-1)
    if (
      block.type === "thinking" &&
      block.text !== "" &&
      last?.type === "thinking" &&
      !last.signature &&
      last.text !== ""
    )
      out[out.length - 1] = { ...block, text: last.text + block.text }
    else out.push(block)
  }
  return out
}
