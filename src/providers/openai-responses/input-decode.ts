/**
 * A Responses request's `input` read back into internal messages: the inverse of the encoder's item list.
 * Consecutive items of one side form one message, split where the encoder would have started a new one (a user
 * message item ends a user turn; two assistant message items in a row are two assistant turns).
 */

import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Block, ImageBlock, Message, Role, TextBlock } from "../../history/message.js"
import { ProviderError } from "../errors.js"
import { obj, str } from "../stream.js"
import { compactionFromItem } from "./compaction.js"
import { OPENAI_RESPONSES_ROLES } from "./request-shape.js"

/** What `input` holds, in promptline's terms. */
export interface DecodedInput {
  /** The text of system and developer items before any other item (only when asked to lift them). */
  leadingSystem: string[]
  messages: Message[]
  unmodeled: string[]
  diagnostics: Diagnostic[]
}

type Part = TextBlock | ImageBlock

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s

/** An error naming the field at fault. */
const invalid = (path: string, what: string) => new ProviderError("invalid-request", `${path}: ${what}`)

/**
 * Reads `input` (a string, or a list of input items). With `liftSystem`, system and developer items before any
 * other item are returned as `leadingSystem` (the request had no `instructions`); elsewhere they are system messages.
 */
export function decodeResponsesInput(input: unknown, liftSystem: boolean): DecodedInput {
  const out: DecodedInput = { leadingSystem: [], messages: [], unmodeled: [], diagnostics: [] }
  if (input === undefined || input === null) return out
  if (typeof input === "string") {
    out.messages.push(message(1, "user", [{ type: "text", text: input }]))
    return out
  }
  if (!Array.isArray(input)) throw invalid("input", "must be a string or a list of input items")
  const reader = new InputReader(out)
  input.forEach((raw, i) => {
    const item = obj(raw)
    if (!item) throw invalid(`input[${i}]`, "must be an input item object")
    reader.item(item, `input[${i}]`, liftSystem)
  })
  reader.finish()
  return out
}

const message = (n: number, role: Role, content: Block[]): Message => ({ id: `m${n}`, role, content, ts: 0 })

class InputReader {
  #current: Message | undefined
  /** The current user message already holds a user message item (the encoder puts it last). */
  #closed = false
  /** The last item added to the current assistant message was a message item. */
  #lastWasText = false
  #seenOther = false
  #reasoningWithoutContent = 0

  constructor(readonly out: DecodedInput) {}

  item(item: Record<string, unknown>, path: string, liftSystem: boolean): void {
    const type = item.type ?? "message"
    switch (type) {
      case "message":
        this.#message(item, path, liftSystem)
        return
      case "function_call": {
        const id = required(item, "call_id", path)
        const name = required(item, "name", path)
        const args = required(item, "arguments", path)
        this.#assistant(false).content.push({ type: "tool_use", id, name, input: this.#arguments(args, path) })
        return
      }
      case "function_call_output": {
        const toolUseId = required(item, "call_id", path)
        const content = this.#output(item.output, `${path}.output`)
        this.#user().content.push({ type: "tool_result", toolUseId, content })
        return
      }
      case "reasoning": {
        this.#reasoning(item, path)
        return
      }
      case "compaction": {
        const block = compactionFromItem(item)
        if (!block) throw invalid(`${path}.encrypted_content`, "a string is required")
        // Kept where it stands, in the assistant turn (as the server's answer carried it).
        this.#assistant(false).content.push(block)
        for (const key of Object.keys(item))
          if (!["type", "id", "encrypted_content"].includes(key) && item[key] != null)
            this.out.unmodeled.push(`${path}.${key}`)
        return
      }
      default:
        // Custom tool calls, hosted tools' calls, item references and unknown items.
        this.out.unmodeled.push(path)
    }
  }

  finish(): void {
    if (this.#reasoningWithoutContent > 0)
      this.out.diagnostics.push(
        diagnostic(
          "info",
          "reasoning-without-encrypted-content",
          `${this.#reasoningWithoutContent} reasoning item${this.#reasoningWithoutContent === 1 ? "" : "s"} without encrypted_content: kept as thinking without a signature (it cannot be sent back statelessly)`,
        ),
      )
  }

  #message(item: Record<string, unknown>, path: string, liftSystem: boolean): void {
    const role = str(item.role)
    if (role === undefined || !Object.hasOwn(OPENAI_RESPONSES_ROLES, role))
      throw invalid(`${path}.role`, 'must be "user", "assistant", "system" or "developer"')
    const side = OPENAI_RESPONSES_ROLES[role as keyof typeof OPENAI_RESPONSES_ROLES]
    const parts = this.#parts(item.content, `${path}.content`)
    if (side === "assistant" && item.phase !== undefined && item.phase !== null)
      this.out.unmodeled.push(`${path}.phase`)
    if (side === "system") {
      const images = parts.filter((p) => p.type === "image").length
      if (images > 0) throw invalid(`${path}.content`, "a system or developer message holds text only")
      const text = parts.map((p) => (p as TextBlock).text).join("\n\n")
      if (liftSystem && !this.#seenOther) this.out.leadingSystem.push(text)
      else this.#push(message(0, "system", [{ type: "text", text }]))
      return
    }
    this.#seenOther = true
    if (parts.length === 0) return
    if (side === "user") {
      this.#user().content.push(...parts)
      this.#closed = true
    } else {
      this.#assistant(true).content.push(...parts)
      this.#lastWasText = true
    }
  }

  #reasoning(item: Record<string, unknown>, path: string): void {
    const id = required(item, "id", path)
    if (!Array.isArray(item.summary)) throw invalid(`${path}.summary`, "must be a list of summary parts")
    const texts = (list: unknown[], at: string) =>
      list.map((s, j) => {
        const text = str(obj(s)?.text)
        if (text === undefined) throw invalid(`${path}.${at}[${j}].text`, "required")
        return text
      })
    let text = texts(item.summary, "summary").join("\n\n")
    if (text === "" && Array.isArray(item.content)) text = texts(item.content, "content").join("\n\n")
    const block: Block = { type: "thinking", text, id }
    const encrypted = str(item.encrypted_content)
    if (encrypted) block.signature = encrypted
    else this.#reasoningWithoutContent++
    this.#assistant(false).content.push(block)
  }

  /** The open user message (until a user message item ends it), or a new one. */
  #user(): Message {
    const current = this.#current
    this.#seenOther = true
    if (current?.role === "user" && !this.#closed) return current
    const next = message(0, "user", [])
    this.#push(next)
    return next
  }

  /** The open assistant message, or a new one; `text` says an assistant message item is coming. */
  #assistant(text: boolean): Message {
    const current = this.#current
    this.#seenOther = true
    if (current?.role === "assistant" && !(text && this.#lastWasText)) {
      this.#lastWasText = false
      return current
    }
    const next = message(0, "assistant", [])
    this.#push(next)
    this.#lastWasText = false
    return next
  }

  #push(next: Message): void {
    next.id = `m${this.out.messages.length + 1}`
    this.out.messages.push(next)
    this.#current = next
    this.#closed = false
  }

  /** Text and image parts of a message's content; other parts are unmodeled. */
  #parts(content: unknown, path: string): Part[] {
    if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }]
    if (!Array.isArray(content)) throw invalid(path, "must be a string or a list of content parts")
    const parts: Part[] = []
    content.forEach((raw, j) => {
      const part = this.#part(raw, `${path}[${j}]`)
      if (part) parts.push(part)
    })
    return parts
  }

  #part(raw: unknown, path: string): Part | undefined {
    const part = obj(raw)
    if (!part) throw invalid(path, "must be a content part object")
    switch (part.type) {
      case "input_text":
      case "output_text":
        return { type: "text", text: required(part, "text", path) }
      case "refusal":
        return { type: "text", text: required(part, "refusal", path) }
      case "input_image": {
        const url = str(part.image_url)
        const data = url === undefined ? undefined : DATA_URL.exec(url)
        // A file id or a web address: the image is not in the request.
        if (!data) {
          this.out.unmodeled.push(path)
          return undefined
        }
        if (part.detail !== undefined && part.detail !== null && part.detail !== "auto")
          this.out.unmodeled.push(`${path}.detail`)
        return { type: "image", mediaType: data[1]!, data: data[2]! }
      }
      default:
        // input_file, input_audio, and part types newer than this decoder.
        this.out.unmodeled.push(path)
        return undefined
    }
  }

  /** A function call output: its text, or its text and image parts. */
  #output(output: unknown, path: string): string | Part[] {
    if (typeof output === "string") return output
    if (!Array.isArray(output)) throw invalid(path, "must be a string or a list of content parts")
    const parts: Part[] = []
    output.forEach((raw, j) => {
      const part = this.#part(raw, `${path}[${j}]`)
      if (part) parts.push(part)
    })
    return parts
  }

  /** Call arguments as JSON; text that is not JSON is kept as the string it is, with a diagnostic. */
  #arguments(args: string, path: string): unknown {
    if (args.trim() === "") return {}
    try {
      return JSON.parse(args)
    } catch {
      this.out.diagnostics.push(
        diagnostic("warning", "arguments-not-json", `${path}.arguments: not JSON; kept as a string`),
      )
      return args
    }
  }
}

/** A required string field, or an error naming it. */
function required(item: Record<string, unknown>, field: string, path: string): string {
  const value = str(item[field])
  if (value === undefined) throw invalid(`${path}.${field}`, "required (a string)")
  return value
}
