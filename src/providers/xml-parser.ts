import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { EnabledTool, JsonSchema } from "../tools/spec.js"
import type { StreamEvent } from "./stream.js"

/** What the XML parser needs: the tools the model may call, and the turn number used in call ids. */
export interface XmlParserOptions {
  tools: readonly EnabledTool[]
  /** Ids are `xml_<turn>_<n>`, n counting calls from 0; default turn 0. */
  turn?: number | string
}

interface Call {
  id: string
  tool: EnabledTool
  input: Record<string, unknown>
  /** Everything the call's text held so far (for a partial-call report). */
  raw: string
  emitted: boolean
  stray: boolean
}

interface Value {
  param: string
  type: string
  text: string
  begun: boolean
  /** The value opened with a line break: one line break before the close tag is wrapping too. */
  wrapped: boolean
}

type State =
  | { kind: "text" }
  | { kind: "open"; tool: EnabledTool; raw: string }
  | { kind: "call"; call: Call }
  | { kind: "value"; call: Call; value: Value }
  | { kind: "closing"; call: Call; value: Value; pending: string; raw: string; newline: boolean }
  | { kind: "skip"; call: Call; tag: string }

const WHITESPACE = /^\s+/

/**
 * The streaming parser for the XML tool-calling dialect: feed it the model's text deltas, it emits
 * `text`, `tool_call_start`, `tool_call_delta` and `tool_call_end` events like a native decoder.
 *
 * A call is `<tool_name>` followed (after whitespace) by `<param>value</param>` elements and
 * `</tool_name>`. Only enabled tool names and their parameter names are recognized; an open tag not
 * followed by one of its parameters or its close tag is text after all. Values are raw text, ended by
 * their own close tag unless more text follows that tag on the same line (then it was part of the
 * value), so code with `<`, `>`, `</div>` and even the value's own close tag mid-line passes through.
 * Whitespace between calls and after the last one is dropped, so calls do not leave empty text blocks.
 * A value written on lines of its own (`<content>\n…\n</content>`) loses those two wrapping line
 * breaks; a value written inline is taken exactly. Parameters typed number, integer, boolean, object or
 * array are parsed as JSON (a value that does not parse stays a string, with a diagnostic). The
 * concatenated `argsDelta`s of a call are the JSON text of its final input. A call still open at the
 * end is reported as a `partial-call` error with its text.
 */
export class XmlToolCallParser {
  /** Warnings about arguments that could not be converted or text the parser skipped. */
  readonly diagnostics: Diagnostic[] = []
  readonly #tools: Map<string, EnabledTool>
  readonly #openTags: string[]
  readonly #turn: string
  #calls = 0
  #completed = 0
  #buf = ""
  #state: State = { kind: "text" }
  #out: StreamEvent[] = []
  /** A call just ended: whitespace that follows is held in `#heldSpace` until it is known to be text. */
  #afterCall = false
  #heldSpace = ""

  constructor(options: XmlParserOptions) {
    this.#tools = new Map(options.tools.map((t) => [t.name, t]))
    this.#openTags = [...this.#tools.keys()].map((name) => `<${name}>`)
    this.#turn = String(options.turn ?? 0)
  }

  /** Calls that ended with their close tag so far. */
  get completedCalls(): number {
    return this.#completed
  }

  /** Feeds the next text delta; returns the events it completes. */
  feed(delta: string): StreamEvent[] {
    this.#out = []
    this.#buf += delta
    this.#run()
    return this.#out
  }

  /** The text ended: flushes held-back text and reports a call still open. */
  end(): StreamEvent[] {
    this.#out = []
    this.#run()
    const s = this.#state
    const rest = this.#buf
    this.#buf = ""
    this.#afterCall = false
    this.#heldSpace = ""
    if (s.kind === "text") {
      if (rest) this.#text(rest)
    } else if (s.kind === "open") {
      this.#out.push({
        type: "error",
        kind: "partial-call",
        message: `the ${s.tool.name} call was cut off before its first parameter`,
        raw: s.raw + rest,
      })
    } else {
      const call = s.call
      this.#out.push({
        type: "error",
        kind: "partial-call",
        message: `tool call ${call.id} (${call.tool.name}) was cut off before </${call.tool.name}>`,
        raw: call.raw + rest,
        toolCallId: call.id,
      })
    }
    this.#state = { kind: "text" }
    return this.#out
  }

  #run(): void {
    for (;;) {
      const before = this.#buf.length
      const state = this.#state
      this.#step()
      // Stop when nothing was consumed and the state did not change: more input is needed.
      if (this.#buf.length === before && this.#state === state) return
    }
  }

  #step(): void {
    const s = this.#state
    switch (s.kind) {
      case "text":
        this.#scanText()
        return
      case "open":
        this.#scanOpen(s)
        return
      case "call":
        this.#scanCall(s.call)
        return
      case "value":
        this.#scanValue(s.call, s.value)
        return
      case "closing":
        this.#scanClosing(s)
        return
      case "skip":
        this.#scanSkip(s.call, s.tag)
        return
    }
  }

  #scanText(): void {
    if (this.#afterCall) {
      // Whitespace right after a call is held: it is dropped if another call or the end follows.
      const ws = WHITESPACE.exec(this.#buf)?.[0] ?? ""
      this.#heldSpace += ws
      this.#buf = this.#buf.slice(ws.length)
      if (this.#buf === "") return
      this.#afterCall = false
    }
    const buf = this.#buf
    const lt = buf.indexOf("<")
    if (lt === -1) {
      this.#text(buf)
      this.#buf = ""
      return
    }
    if (lt > 0) {
      this.#text(buf.slice(0, lt))
      this.#buf = buf.slice(lt)
      return
    }
    const match = matchTag(buf, this.#openTags)
    if (match === "wait") return
    if (match === undefined) {
      this.#text("<")
      this.#buf = buf.slice(1)
      return
    }
    this.#buf = buf.slice(match.length)
    this.#state = { kind: "open", tool: this.#tools.get(match.slice(1, -1))!, raw: match }
  }

  #scanOpen(s: Extract<State, { kind: "open" }>): void {
    const ws = WHITESPACE.exec(this.#buf)?.[0] ?? ""
    if (ws) {
      s.raw += ws
      this.#buf = this.#buf.slice(ws.length)
    }
    if (this.#buf === "") return
    const match = this.#buf[0] === "<" ? matchTag(this.#buf, this.#innerTags(s.tool)) : undefined
    if (match === "wait") return
    if (match === undefined) {
      // Not a call after all: the open tag was text.
      this.#text(s.raw)
      this.#state = { kind: "text" }
      return
    }
    const call: Call = {
      id: `xml_${this.#turn}_${this.#calls++}`,
      tool: s.tool,
      input: {},
      raw: s.raw,
      emitted: false,
      stray: false,
    }
    this.#heldSpace = ""
    this.#out.push({ type: "tool_call_start", id: call.id, name: s.tool.name })
    this.#state = { kind: "call", call }
  }

  #scanCall(call: Call): void {
    const ws = WHITESPACE.exec(this.#buf)?.[0] ?? ""
    if (ws) this.#consume(call, ws.length)
    const buf = this.#buf
    if (buf === "") return
    if (buf[0] !== "<") {
      const next = buf.indexOf("<")
      this.#strayText(call)
      this.#consume(call, next === -1 ? buf.length : next)
      return
    }
    const match = matchTag(buf, this.#innerTags(call.tool))
    if (match === "wait") return
    if (match !== undefined) {
      this.#consume(call, match.length)
      if (match === `</${call.tool.name}>`) {
        this.#finishCall(call)
        return
      }
      const param = match.slice(1, -1)
      const value: Value = {
        param,
        type: primaryType(call.tool.parameters.properties[param]),
        text: "",
        begun: false,
        wrapped: false,
      }
      if (value.type === "string") this.#argsDelta(call, `${call.emitted ? "," : "{"}${JSON.stringify(param)}:"`)
      this.#state = { kind: "value", call, value }
      return
    }
    const other = /^<([A-Za-z_][\w.-]*)>/.exec(buf)
    if (other) {
      this.diagnostics.push(
        diagnostic("warning", "xml-unknown-parameter", `${call.tool.name} has no parameter <${other[1]}>: skipped`),
      )
      this.#consume(call, other[0].length)
      this.#state = { kind: "skip", call, tag: other[1]! }
      return
    }
    if (/^<[A-Za-z_][\w.-]*$/.test(buf) && buf.length < 64) return
    this.#strayText(call)
    this.#consume(call, 1)
  }

  #scanValue(call: Call, value: Value): void {
    let buf = this.#buf
    if (!value.begun) {
      if (buf === "" || buf === "\r") return
      const lead = buf.startsWith("\r\n") ? 2 : buf.startsWith("\n") ? 1 : 0
      this.#consume(call, lead)
      buf = this.#buf
      value.begun = true
      value.wrapped = lead > 0
    }
    const close = `</${value.param}>`
    const at = buf.indexOf(close)
    if (at !== -1) {
      this.#consume(call, at + close.length)
      this.#state = { kind: "closing", call, value, pending: buf.slice(0, at), raw: close, newline: false }
      return
    }
    // Keep back what may be the start of the close tag, a wrapping line break, and half a surrogate pair.
    let safe = buf.length - partialSuffix(buf, close)
    if (value.wrapped) while (safe > 0 && (buf[safe - 1] === "\n" || buf[safe - 1] === "\r")) safe--
    if (safe > 0 && isHighSurrogate(buf.charCodeAt(safe - 1))) safe--
    if (safe === 0) return
    this.#valueText(call, value, buf.slice(0, safe))
    this.#consume(call, safe)
  }

  /**
   * After a value's close tag: it ends the value when a parameter or the call's close tag follows, or
   * anything at all on a later line; something else on the same line means the tag was part of the value.
   */
  #scanClosing(s: Extract<State, { kind: "closing" }>): void {
    const ws = WHITESPACE.exec(this.#buf)?.[0] ?? ""
    if (ws) {
      s.raw += ws
      s.newline ||= /[\r\n]/.test(ws)
      this.#buf = this.#buf.slice(ws.length)
      s.call.raw += ws
    }
    if (this.#buf === "") return
    const match = this.#buf[0] === "<" ? matchTag(this.#buf, this.#innerTags(s.call.tool)) : undefined
    if (match === "wait") return
    if (match === undefined && !s.newline) {
      this.#valueText(s.call, s.value, s.pending + s.raw)
      this.#state = { kind: "value", call: s.call, value: s.value }
      return
    }
    this.#valueText(s.call, s.value, s.value.wrapped ? s.pending.replace(/\r?\n$/, "") : s.pending)
    this.#closeValue(s.call, s.value)
    this.#state = { kind: "call", call: s.call }
  }

  #scanSkip(call: Call, tag: string): void {
    const close = `</${tag}>`
    const at = this.#buf.indexOf(close)
    if (at !== -1) {
      this.#consume(call, at + close.length)
      this.#state = { kind: "call", call }
      return
    }
    this.#consume(call, this.#buf.length - partialSuffix(this.#buf, close))
  }

  #innerTags(tool: EnabledTool): string[] {
    return [`</${tool.name}>`, ...Object.keys(tool.parameters.properties).map((p) => `<${p}>`)]
  }

  #consume(call: Call, n: number): void {
    if (n <= 0) return
    call.raw += this.#buf.slice(0, n)
    this.#buf = this.#buf.slice(n)
  }

  #text(text: string): void {
    if (!text) return
    this.#out.push({ type: "text", delta: this.#heldSpace + text })
    this.#heldSpace = ""
  }

  #argsDelta(call: Call, argsDelta: string): void {
    call.emitted = true
    this.#out.push({ type: "tool_call_delta", id: call.id, argsDelta })
  }

  #valueText(call: Call, value: Value, text: string): void {
    if (text === "") return
    value.text += text
    if (value.type === "string") this.#argsDelta(call, JSON.stringify(text).slice(1, -1))
  }

  #closeValue(call: Call, value: Value): void {
    if (value.type === "string") {
      call.input[value.param] = value.text
      this.#argsDelta(call, '"')
      return
    }
    const converted = convert(value.text, value.type)
    if (!converted.ok)
      this.diagnostics.push(
        diagnostic(
          "warning",
          "xml-argument-not-json",
          `${call.tool.name}.${value.param} should be ${value.type} JSON; kept as text: ${value.text.slice(0, 80)}`,
        ),
      )
    call.input[value.param] = converted.value
    this.#argsDelta(
      call,
      `${call.emitted ? "," : "{"}${JSON.stringify(value.param)}:${JSON.stringify(converted.value)}`,
    )
  }

  #finishCall(call: Call): void {
    this.#argsDelta(call, call.emitted ? "}" : "{}")
    this.#out.push({ type: "tool_call_end", id: call.id, input: call.input })
    this.#completed++
    this.#afterCall = true
    this.#state = { kind: "text" }
  }

  #strayText(call: Call): void {
    if (call.stray) return
    call.stray = true
    this.diagnostics.push(
      diagnostic("info", "xml-stray-text", `text between the parameters of ${call.tool.name} (${call.id}) was skipped`),
    )
  }
}

/** Parses a whole text at once (for non-streamed answers and tests). */
export function parseXmlToolCalls(
  text: string,
  options: XmlParserOptions,
): { events: StreamEvent[]; diagnostics: Diagnostic[] } {
  const parser = new XmlToolCallParser(options)
  const events = [...parser.feed(text), ...parser.end()]
  return { events, diagnostics: parser.diagnostics }
}

/**
 * Runs a decoded stream through the XML parser: text deltas become text and tool-call events, other
 * events pass through. A normal stop after at least one completed call becomes `tool_use`.
 */
export async function* withXmlToolCalls(
  events: AsyncIterable<StreamEvent> | Iterable<StreamEvent>,
  options: XmlParserOptions,
): AsyncGenerator<StreamEvent> {
  // One parser for the whole stream, so call ids stay unique across the responses of a recording.
  const parser = new XmlToolCallParser(options)
  let completedBefore = 0
  for await (const event of events) {
    if (event.type === "text") {
      yield* parser.feed(event.delta)
    } else if (event.type === "stop") {
      yield* parser.end()
      const reason = event.reason === "end" && parser.completedCalls > completedBefore ? "tool_use" : event.reason
      completedBefore = parser.completedCalls
      yield { ...event, reason }
    } else if (event.type === "start") {
      // A restarted response: whatever the parser held belongs to the abandoned one.
      yield* parser.end()
      completedBefore = parser.completedCalls
      yield event
    } else yield event
  }
  yield* parser.end()
}

/** Which of `tags` `buf` starts with; "wait" when it is still a prefix of one; undefined when none can match. */
function matchTag(buf: string, tags: readonly string[]): string | "wait" | undefined {
  let wait = false
  for (const tag of tags) {
    if (buf.startsWith(tag)) return tag
    if (buf.length < tag.length && tag.startsWith(buf)) wait = true
  }
  return wait ? "wait" : undefined
}

/** Length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let n = Math.min(tag.length - 1, text.length); n > 0; n--) if (text.endsWith(tag.slice(0, n))) return n
  return 0
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}

function primaryType(schema: JsonSchema | undefined): string {
  const type = schema?.type
  const first = Array.isArray(type) ? type.find((t) => t !== "null") : type
  return typeof first === "string" ? first : "string"
}

function convert(raw: string, type: string): { value: unknown; ok: boolean } {
  const text = raw.trim()
  let parsed: unknown
  try {
    parsed = JSON.parse(type === "boolean" ? text.toLowerCase() : text)
  } catch {
    return { value: raw, ok: false }
  }
  const ok =
    type === "number" || type === "integer"
      ? typeof parsed === "number" && (type === "number" || Number.isInteger(parsed))
      : type === "boolean"
        ? typeof parsed === "boolean"
        : type === "array"
          ? Array.isArray(parsed)
          : type === "object"
            ? typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
            : true
  return ok ? { value: parsed, ok } : { value: raw, ok: false }
}
