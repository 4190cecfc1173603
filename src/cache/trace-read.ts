/**
 * Reading traces back: the conversations of a trace folder with their totals (for `promptline traces`), and
 * one conversation's requests with their bodies rebuilt from the blob store (for `inspect --trace`).
 */
import { createReadStream } from "node:fs"
import { readdir, readFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { FileError } from "../errors.js"
import { fsProblem } from "../fs-problem.js"
import { type CostSum, PriceList } from "../models/cost.js"
import type { ModelInfo } from "../models/types.js"
import { BlobStore } from "./blob-store.js"
import type { MissCause } from "./explain.js"
import type { TraceLine } from "./trace-types.js"
import { UsageTally, usageEntryOfLine } from "./usage.js"

/** The totals of one conversation. */
export interface ConversationSummary {
  key: string
  file: string
  requests: number
  firstAt: number
  lastAt: number
  model: string
  clientApi: string
  upstream: string
  /**
   * Prompt tokens, those read from and written to the cache (reported where known, else predicted), and output
   * tokens (reported).
   */
  tokens: { total: number; read: number; write: number; output: number }
  cachedShare: number
  /** What the requests cost at catalog prices, input and output, from the usage they reported (requestCost). */
  cost: CostSum
  /** Requests that succeeded without reporting usage: their cost is not in `cost`. */
  unreported: number
  /** What the cache misses added to the cost. */
  missCost: number
  misses: { n: number; cause: MissCause; missedTokens: number; addedCost: number }[]
}

/** The lines of a trace file; a torn or foreign line is a FileError naming the line. */
export async function readTraceFile(file: string): Promise<TraceLine[]> {
  let text: string
  try {
    text = await readFile(file, "utf8")
  } catch (error) {
    throw new FileError("file-unreadable", file, `cannot read the trace: ${fsProblem(error)}`)
  }
  const out: TraceLine[] = []
  text.split("\n").forEach((line, i) => {
    if (!line.trim()) return
    const read = parseTraceLine(line)
    if (typeof read === "string")
      throw new FileError(read === NOT_JSON ? "invalid-json" : "invalid-input", file, read, { line: i + 1 })
    out.push(read)
  })
  return out
}

const NOT_JSON = "not a JSON line"

const isCount = (n: unknown) => typeof n === "number" && Number.isFinite(n) && n >= 0

/** The latest time a JavaScript date can hold, in milliseconds since the epoch. */
const MAX_TIME = 8.64e15

const isTime = (n: unknown) => isCount(n) && (n as number) <= MAX_TIME

/** A trace line from its text, or what is wrong with it. */
export function parseTraceLine(text: string): TraceLine | string {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return NOT_JSON
  }
  const entry = parsed as Partial<TraceLine> | null
  if (
    typeof entry !== "object" ||
    entry === null ||
    entry.v !== 1 ||
    typeof entry.n !== "number" ||
    !isTime(entry.at) ||
    typeof entry.model !== "string" ||
    typeof entry.upstream !== "object" ||
    entry.upstream === null ||
    !entry.verdict ||
    !entry.sent
  )
    return "not a promptline trace line (v 1 with n, at, model, upstream, sent and verdict)"
  const usage = entry.usage as Record<string, unknown> | undefined
  if (usage !== undefined && !["input", "output", "cacheRead", "cacheWrite"].every((k) => isCount(usage?.[k])))
    return "the line's usage is not four token counts (input, output, cacheRead, cacheWrite)"
  if (entry.attempts !== undefined && !Array.isArray(entry.attempts)) return "the line's attempts is not a list"
  return entry as TraceLine
}

/** One line of a trace folder as read back: the line, and the file and line number it came from. */
export interface ScannedLine {
  file: string
  /** 1-based. */
  line: number
  entry: TraceLine
}

/**
 * Every trace line of a folder's conversations, file by file in name order and line by line, without holding a
 * whole file in memory. A line that is not a trace line, or a file that cannot be read, is a warning handed to
 * `onDiagnostic` naming the file and line (`trace-line-invalid`, `trace-unreadable`), and reading goes on.
 */
export async function* scanTraces(
  dir: string,
  onDiagnostic: (d: Diagnostic) => void,
): AsyncGenerator<ScannedLine, void, undefined> {
  const folder = join(dir, "conversations")
  let names: string[]
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith(".jsonl")).sort()
  } catch {
    throw new FileError("file-unreadable", dir, "no trace folder here (expected a conversations/ folder)")
  }
  for (const name of names) {
    const file = join(folder, name)
    const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Number.POSITIVE_INFINITY })
    let n = 0
    try {
      for await (const text of lines) {
        n++
        if (!text.trim()) continue
        const read = parseTraceLine(text)
        if (typeof read === "string")
          onDiagnostic(diagnostic("warning", "trace-line-invalid", `${read}; skipped`, { path: file, line: n }))
        else yield { file, line: n, entry: read }
      }
    } catch (error) {
      onDiagnostic(
        diagnostic("warning", "trace-unreadable", `cannot read the trace: ${fsProblem(error)}`, { path: file }),
      )
    } finally {
      lines.close()
    }
  }
}

/** The trace folder a conversation file belongs to (`<dir>/conversations/<key>.jsonl`). */
export function traceDirOf(file: string): string {
  return dirname(dirname(file))
}

/** The body a trace line stored, rebuilt from the blobs of its trace folder. */
export async function bodyOf(file: string, line: TraceLine, which: "sent" | "received" = "sent"): Promise<unknown> {
  const side = which === "received" ? (line.received ?? line.sent) : line.sent
  return new BlobStore(join(traceDirOf(file), "blobs")).getBody(side.body)
}

/** Prompt tokens of a line: reported by the provider when known, else predicted. */
export function lineTokens(line: TraceLine): { total: number; read: number; write: number } {
  const t = line.verdict.tokens
  if (t.reported)
    return {
      total: t.reported.input + t.reported.read + t.reported.write,
      read: t.reported.read,
      write: t.reported.write,
    }
  return { total: t.total, read: t.predictedRead, write: t.predictedWrite }
}

/**
 * Summaries of every conversation in a trace folder, most recent first. Lines that are not trace lines are left out,
 * each a warning to `onDiagnostic` (scanTraces).
 */
export async function summarizeTraces(
  dir: string,
  models: readonly ModelInfo[] = [],
  onDiagnostic: (d: Diagnostic) => void = () => {},
): Promise<ConversationSummary[]> {
  const prices = new PriceList(models)
  const out: ConversationSummary[] = []
  let current: { file: string; lines: TraceLine[] } | undefined
  const flush = () => {
    if (current && current.lines.length > 0) out.push(summaryOf(current.file, current.lines, prices))
  }
  for await (const { file, entry } of scanTraces(dir, onDiagnostic)) {
    if (current?.file !== file) {
      flush()
      current = { file, lines: [] }
    }
    current.lines.push(entry)
  }
  flush()
  return out.sort((a, b) => b.lastAt - a.lastAt || a.key.localeCompare(b.key))
}

/** The totals of one conversation's lines. */
function summaryOf(file: string, lines: readonly TraceLine[], prices: PriceList): ConversationSummary {
  const tokens = { total: 0, read: 0, write: 0 }
  // What the requests cost is what the providers reported: the same tally as `promptline usage`.
  const usage = new UsageTally(prices)
  let missCost = 0
  const misses: ConversationSummary["misses"] = []
  for (const line of lines) {
    const t = lineTokens(line)
    tokens.total += t.total
    tokens.read += t.read
    tokens.write += t.write
    usage.add(usageEntryOfLine(line))
    if (line.verdict.verdict === "miss" && line.verdict.cause) {
      missCost += line.verdict.addedCost
      misses.push({
        n: line.n,
        cause: line.verdict.cause,
        missedTokens: line.verdict.missedTokens,
        addedCost: line.verdict.addedCost,
      })
    }
  }
  const last = lines.at(-1)!
  const totals = usage.totals()
  return {
    key: basename(file, ".jsonl"),
    file,
    requests: lines.length,
    firstAt: lines[0]!.at,
    lastAt: last.at,
    model: last.model,
    clientApi: last.clientApi,
    upstream: last.upstream.name ?? last.upstream.provider ?? last.upstream.format,
    tokens: { ...tokens, output: totals.tokens.output },
    cachedShare: tokens.total > 0 ? tokens.read / tokens.total : 0,
    cost: totals.cost,
    unreported: totals.unreported,
    missCost,
    misses,
  }
}
