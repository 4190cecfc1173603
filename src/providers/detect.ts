/**
 * Which wire format a recorded response is in, read from the payloads themselves: every provider's stream
 * and body carries marks no other format has (event types, `object` names, field names), each in its descriptor.
 */
import type { WireFormatDescriptor } from "./descriptor.js"
import { descriptorOf, type WireFormat, wireFormatDescriptors } from "./descriptors.js"

/** A guess with the mark it rests on, for messages such as "looks like anthropic (message_start)". */
export interface FormatGuess {
  format: WireFormat
  /** The mark that decided it, in the recording's own words. */
  evidence: string
}

/** A format that speaks another's shape (DeepSeek speaks OpenAI Chat): its mark is the more specific one. */
const isFlavour = (d: WireFormatDescriptor) => d.speaks !== d.format

/** The format of one parsed payload or body, or undefined when it carries no mark (each descriptor's `detect`). */
export function formatOfPayload(value: unknown): FormatGuess | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
  const v = value as Record<string, unknown>
  let found: FormatGuess | undefined
  for (const d of wireFormatDescriptors()) {
    const evidence = d.detect?.(v)
    if (evidence === undefined) continue
    if (isFlavour(d)) return { format: d.format, evidence }
    found ??= { format: d.format, evidence }
  }
  return found
}

/** Whether another format speaks `format`'s shape, so that a payload of `format` may yet turn out to be that one's. */
const hasFlavours = (format: WireFormat) => wireFormatDescriptors().some((d) => isFlavour(d) && d.speaks === format)

/** The JSON documents of a recording: SSE `data:` lines, JSON lines, or one whole body. */
function documentsOf(text: string): unknown[] {
  const out: unknown[] = []
  const parse = (s: string) => {
    try {
      out.push(JSON.parse(s))
    } catch {
      // not JSON: a `[DONE]` marker, a comment, or a broken line
    }
  }
  const trimmed = text.replace(/^\uFEFF/, "").trim()
  if (trimmed.startsWith("{") || trimmed.startsWith("[")) {
    const before = out.length
    parse(trimmed)
    if (out.length > before) {
      const whole = out.pop()
      return Array.isArray(whole) ? whole : [whole]
    }
  }
  for (const line of text.split(/\r?\n/)) {
    const data = /^data:\s?(.*)$/.exec(line)
    if (data) parse(data[1]!)
    else if (line.trim().startsWith("{")) parse(line.trim())
  }
  return out
}

/**
 * Detects the wire format of a recording from its payloads. A flavour's mark anywhere (DeepSeek's) wins over the
 * shape it speaks (OpenAI Chat: its first chunks may look like any Chat stream); otherwise the first payload with
 * a mark decides.
 */
export function detectFormat(text: string): FormatGuess | undefined {
  let first: FormatGuess | undefined
  for (const doc of documentsOf(text)) {
    const guess = formatOfPayload(doc)
    if (!guess) continue
    if (isFlavour(descriptorOf(guess.format))) return guess
    if (!first) first = guess
    if (!hasFlavours(first.format)) return first
  }
  return first
}
