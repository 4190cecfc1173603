/**
 * Chat Completions `messages` read back as the system prompt and internal messages. The first run of system and
 * developer messages is the system prompt; later ones are `system` messages where they stand. Tool (and legacy
 * function) messages become tool results of one user message, which a user message right after them joins, the
 * way the encoder splits one user message into tool messages and the user's own parts.
 */
import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { Block, ImageBlock, Message, TextBlock, ToolResultBlock } from "../../history/message.js"
import { obj, str } from "../stream.js"
import { invalidAt } from "./tools.js"

/** The prefix the encoder gives the text of a tool result that is an error. */
export const TOOL_ERROR_PREFIX = "Error: "

/** Message fields every role may carry that promptline reads (besides the role's own). */
const COMMON = new Set(["role", "content"])

/** The fields read per role; any other field with a value is unmodeled. */
const READ: Record<string, ReadonlySet<string>> = {
  system: COMMON,
  developer: COMMON,
  user: COMMON,
  assistant: new Set(["role", "content", "tool_calls", "function_call", "reasoning_content", "refusal"]),
  tool: new Set(["role", "content", "tool_call_id", "name"]),
  function: new Set(["role", "content", "name"]),
}

/** A parsed `data:` URL of a base64 image. */
const DATA_URL = /^data:([^;,]+);base64,(.*)$/s

/** Reads one Chat message after another; `system`, `messages` and `systemRole` hold the result. */
export class ChatHistoryReader {
  /** The system prompt: the leading system and developer messages, joined by blank lines. */
  system = ""
  /** The role the leading system messages used. */
  systemRole: "system" | "developer" | undefined
  /** Tool messages carried the tool's `name` (what some compatible servers want). */
  toolResultName = false
  readonly messages: Message[] = []
  readonly #sink: { unmodeled: string[]; diagnostics: Diagnostic[] }
  #leading = true
  #systemParts = 0
  /** The user message tool results are gathered into, until a turn of another kind starts. */
  #results: Message | undefined
  /** Legacy `function_call`s still unanswered: name → call ids, oldest first. */
  readonly #legacy = new Map<string, string[]>()

  constructor(sink: { unmodeled: string[]; diagnostics: Diagnostic[] }) {
    this.#sink = sink
  }

  /** Reads `messages[i]`. */
  read(value: unknown, i: number): void {
    const path = `messages[${i}]`
    const m = obj(value)
    if (!m) throw invalidAt(path, "a message must be an object")
    const role = m.role
    if (typeof role !== "string" || !Object.hasOwn(READ, role)) throw invalidAt(`${path}.role`, `unknown role ${role}`)
    for (const key of Object.keys(m))
      if (!READ[role]!.has(key) && m[key] !== null && m[key] !== undefined) this.#sink.unmodeled.push(`${path}.${key}`)
    if (role === "system" || role === "developer") this.#system(m, path, role)
    else if (role === "tool" || role === "function") this.#toolResult(m, path, role)
    else if (role === "user") {
      this.#leading = false
      const content = this.#parts(m.content, path, "user")
      const joined = this.#results
      this.#results = undefined
      if (joined) joined.content.push(...content)
      else this.#push("user", content)
    } else {
      this.#leading = false
      this.#results = undefined
      this.#assistant(m, path)
    }
  }

  #system(m: Record<string, unknown>, path: string, role: "system" | "developer"): void {
    const text = this.#parts(m.content, path, "system") as TextBlock[]
    this.#results = undefined
    if (this.#leading) {
      this.systemRole ??= role
      const joined = text.map((b) => b.text).join("\n\n")
      this.system = this.system === "" ? joined : `${this.system}\n\n${joined}`
      if (++this.#systemParts === 2)
        this.#sink.diagnostics.push(
          diagnostic(
            "info",
            "system-messages-joined",
            "the leading system messages were joined into one system prompt",
          ),
        )
      return
    }
    this.#push("system", text)
  }

  #assistant(m: Record<string, unknown>, path: string): void {
    const content: Block[] = []
    const reasoning = str(m.reasoning_content)
    if (reasoning !== undefined && reasoning !== "") content.push({ type: "thinking", text: reasoning })
    if (m.content !== null && m.content !== undefined) content.push(...this.#parts(m.content, path, "assistant"))
    const refusal = str(m.refusal)
    if (refusal) content.push({ type: "text", text: refusal })
    if (m.tool_calls !== undefined && m.tool_calls !== null) {
      if (!Array.isArray(m.tool_calls)) throw invalidAt(`${path}.tool_calls`, "must be a list")
      m.tool_calls.forEach((c, k) => {
        const call = obj(c)
        const at = `${path}.tool_calls[${k}]`
        if (!call) throw invalidAt(at, "a tool call must be an object")
        if (call.type === "custom") {
          this.#sink.unmodeled.push(at)
          return
        }
        const id = str(call.id)
        if (!id) throw invalidAt(`${at}.id`, "a tool call id is required")
        const fn = obj(call.function)
        const name = str(fn?.name)
        if (!name) throw invalidAt(`${at}.function.name`, "a function name is required")
        content.push({ type: "tool_use", id, name, input: this.#args(fn?.arguments, `${at}.function.arguments`) })
      })
    }
    const legacy = obj(m.function_call)
    if (legacy) {
      const name = str(legacy.name)
      if (!name) throw invalidAt(`${path}.function_call.name`, "a function name is required")
      const id = `call_${path.replace(/\W+/g, "_")}legacy`
      this.#legacy.set(name, [...(this.#legacy.get(name) ?? []), id])
      content.push({
        type: "tool_use",
        id,
        name,
        input: this.#args(legacy.arguments, `${path}.function_call.arguments`),
      })
    }
    this.#push("assistant", content)
  }

  #toolResult(m: Record<string, unknown>, path: string, role: "tool" | "function"): void {
    this.#leading = false
    let id: string | undefined
    if (role === "tool") {
      id = str(m.tool_call_id)
      if (!id) throw invalidAt(`${path}.tool_call_id`, "a tool message needs the id of the call it answers")
      if (typeof m.name === "string") this.toolResultName = true
    } else {
      const name = str(m.name)
      if (!name) throw invalidAt(`${path}.name`, "a function message needs the function's name")
      const open = this.#legacy.get(name) ?? []
      id = open.shift() ?? `call_${path.replace(/\W+/g, "_")}legacy`
    }
    const parts = this.#parts(m.content, path, "tool") as TextBlock[]
    const result: ToolResultBlock = { type: "tool_result", toolUseId: id, content: "" }
    const only = parts.length === 1 ? parts[0]!.text : undefined
    if (typeof m.content === "string" && only !== undefined && only.startsWith(TOOL_ERROR_PREFIX)) {
      result.content = only.slice(TOOL_ERROR_PREFIX.length)
      result.isError = true
    } else result.content = typeof m.content === "string" ? (only ?? "") : parts
    if (!this.#results) {
      this.#results = this.#push("user", [])
    }
    this.#results.content.push(result)
  }

  /** Tool-call arguments as JSON; text that is not JSON becomes `{}`, with a diagnostic naming the path. */
  #args(value: unknown, path: string): unknown {
    const text = str(value) ?? ""
    if (text.trim() === "") return {}
    try {
      return JSON.parse(text)
    } catch {
      this.#sink.diagnostics.push(
        diagnostic("warning", "tool-arguments-invalid", `${path}: the arguments are not JSON; read as {}`),
      )
      return {}
    }
  }

  /** A message's content as blocks: a string, or a list of parts (what each role may hold differs). */
  #parts(content: unknown, path: string, role: "system" | "user" | "assistant" | "tool"): Block[] {
    if (typeof content === "string") return [{ type: "text", text: content }]
    if (!Array.isArray(content)) throw invalidAt(`${path}.content`, "must be a string or a list of parts")
    const out: Block[] = []
    content.forEach((p, j) => {
      const at = `${path}.content[${j}]`
      const part = obj(p)
      const type = str(part?.type)
      if (!part || !type) throw invalidAt(`${at}.type`, "a content part needs a type")
      if (type === "text" || (type === "refusal" && role === "assistant")) {
        const text = str(type === "text" ? part.text : part.refusal)
        if (text === undefined) throw invalidAt(`${at}.${type}`, "the part's text is required")
        out.push({ type: "text", text })
      } else if (type === "image_url" && role === "user") {
        const image = this.#image(part, at)
        if (image) out.push(image)
      } else this.#sink.unmodeled.push(at)
    })
    return out
  }

  /** A `data:` image as an image block; an image by URL is unmodeled (promptline carries images inline). */
  #image(part: Record<string, unknown>, at: string): ImageBlock | undefined {
    const imageUrl = obj(part.image_url)
    const url = str(imageUrl?.url)
    if (!imageUrl || url === undefined) throw invalidAt(`${at}.image_url.url`, "an image part needs a url")
    const data = DATA_URL.exec(url)
    if (!data) {
      this.#sink.unmodeled.push(at)
      return undefined
    }
    const detail = imageUrl.detail
    if (detail !== undefined && detail !== null && detail !== "auto")
      this.#sink.unmodeled.push(`${at}.image_url.detail`)
    return { type: "image", mediaType: data[1]!, data: data[2]! }
  }

  #push(role: Message["role"], content: Block[]): Message {
    const message: Message = { id: `m${this.messages.length + 1}`, role, content, ts: 0 }
    this.messages.push(message)
    return message
  }
}
