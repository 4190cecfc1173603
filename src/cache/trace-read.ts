/**
 * Reading traces back: the conversations of a trace folder with their totals (for `promptline traces`), and
 * one conversation's requests with their bodies rebuilt from the blob store (for `inspect --trace`).
 */
import { readdir, readFile } from "node:fs/promises"
import { basename, dirname, join } from "node:path"
import { FileError } from "../errors.js"
import { fsProblem } from "../fs-problem.js"
import { resolveModel } from "../models/resolve.js"
import type { ModelInfo } from "../models/types.js"
import { BlobStore } from "./blob-store.js"
import { promptCost } from "./cost.js"
import type { MissCause } from "./explain.js"
import type { TraceLine } from "./trace-types.js"

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
  /** Prompt tokens, and those read from and written to the cache (reported where known, else predicted). */
  tokens: { total: number; read: number; write: number }
  cachedShare: number
  /** Prompt cost at catalog prices, and what the misses added to it. */
  cost: number
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
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw new FileError("invalid-json", file, "not a JSON line", { line: i + 1 })
    }
    const entry = parsed as Partial<TraceLine>
    if (entry.v !== 1 || typeof entry.n !== "number" || !entry.verdict || !entry.sent)
      throw new FileError("invalid-input", file, "not a promptline trace line (v 1 with n, sent and verdict)", {
        line: i + 1,
      })
    out.push(entry as TraceLine)
  })
  return out
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

/** Summaries of every conversation in a trace folder, most recent first. */
export async function summarizeTraces(dir: string, models: readonly ModelInfo[] = []): Promise<ConversationSummary[]> {
  const folder = join(dir, "conversations")
  let names: string[]
  try {
    names = (await readdir(folder)).filter((n) => n.endsWith(".jsonl")).sort()
  } catch {
    throw new FileError("file-unreadable", dir, "no trace folder here (expected a conversations/ folder)")
  }
  const out: ConversationSummary[] = []
  for (const name of names) {
    const file = join(folder, name)
    const lines = await readTraceFile(file)
    if (lines.length === 0) continue
    const tokens = { total: 0, read: 0, write: 0 }
    let cost = 0
    let missCost = 0
    const misses: ConversationSummary["misses"] = []
    for (const line of lines) {
      const t = lineTokens(line)
      tokens.total += t.total
      tokens.read += t.read
      tokens.write += t.write
      const model = resolveModel(line.model, { models }).model
      cost += promptCost(model, { input: t.total - t.read - t.write, read: t.read, write: t.write })
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
    out.push({
      key: basename(name, ".jsonl"),
      file,
      requests: lines.length,
      firstAt: lines[0]!.at,
      lastAt: last.at,
      model: last.model,
      clientApi: last.clientApi,
      upstream: last.upstream.provider ?? last.upstream.format,
      tokens,
      cachedShare: tokens.total > 0 ? tokens.read / tokens.total : 0,
      cost,
      missCost,
      misses,
    })
  }
  return out.sort((a, b) => b.lastAt - a.lastAt || a.key.localeCompare(b.key))
}
