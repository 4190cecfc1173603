/**
 * Traces: one JSON line per request in a file per conversation (`conversations/<key>.jsonl`), bodies stored
 * once by content (blob-store.ts), credentials redacted, a retention limit, every file written atomically.
 * `record` is the one call a server or agent makes per request: it explains the request's cache use against
 * the previous request of its conversation and returns the verdict and the `x-promptline-cache` header value.
 */
import { readdir, readFile, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { makePrivateFolder, writeFileAtomic } from "../atomic-write.js"
import type { TokenCounter } from "../history/tokens.js"
import type { ModelInfo } from "../models/types.js"
import { redactHeaders, redactUrl } from "../redact.js"
import { BlobStore, TRACE_FILE_MODE } from "./blob-store.js"
import { affinity, conversationKeys } from "./conversation.js"
import { CacheExplainer, type CacheRequest, type CacheVerdict } from "./explain.js"
import { cacheHeader } from "./header.js"
import { parseTraceLine } from "./trace-read.js"
import type { StoredMessage, TracedMessage, TraceInput, TraceLine } from "./trace-types.js"

export type { TraceAttempt, TracedMessage, TraceInput, TraceLine } from "./trace-types.js"

/** Retention of a trace folder (the config's `traces` section). */
export interface TraceRetention {
  /** Conversations kept (the most recent by their last request). */
  maxConversations?: number
  /** Bytes the folder may hold (conversations and blobs); the oldest conversations go first. */
  maxBytes?: number
  /** Conversations whose last request is older than this many days are removed. */
  maxAgeDays?: number
}

/** What `record` returns. */
export interface TraceRecord {
  conversation: string
  /** 1-based position of the request in its conversation. */
  index: number
  verdict: CacheVerdict
  /** The `x-promptline-cache` header value. */
  header: string
}

/** Options of a trace store. */
export interface TraceStoreOptions {
  counter: TokenCounter
  models?: readonly ModelInfo[]
  retention?: TraceRetention
}

interface Conversation {
  key: string
  group?: string
  lines: string[]
  lastAt: number
  last?: CacheRequest
}

/** Writes traces to a folder and explains each request's cache use. */
export class TraceStore {
  private readonly blobs: BlobStore
  private readonly explainer: CacheExplainer
  private readonly conversations = new Map<string, Conversation>()
  /** The conversations of each group (first user message, session id), by key. */
  private readonly byGroup = new Map<string, Set<string>>()
  private loaded = false
  private queue: Promise<unknown> = Promise.resolve()

  constructor(
    readonly dir: string,
    private readonly options: TraceStoreOptions,
  ) {
    this.blobs = new BlobStore(join(dir, "blobs"))
    this.explainer = new CacheExplainer({
      counter: options.counter,
      ...(options.models ? { models: options.models } : {}),
    })
  }

  /** Records one request; calls are serialized, so concurrent requests are written in the order they came. */
  record(input: TraceInput): Promise<TraceRecord> {
    const next = this.queue.then(() => this.recordNow(input))
    this.queue = next.catch(() => undefined)
    return next
  }

  /**
   * The verdict a request gets before its answer (no usage yet), for a header sent before the answer streams;
   * nothing is written. `record` with the usage comes after and reuses the layout.
   */
  preview(
    input: Pick<TraceInput, "at" | "upstream" | "model" | "conversation" | "sent">,
  ): Promise<Omit<TraceRecord, "index">> {
    const next = this.queue.then(async () => {
      await this.load()
      const request = requestOf(input)
      const { key } = await this.keyOf(request, input.conversation)
      const conversation = this.conversations.get(key)
      const previous = conversation ? (conversation.last ?? (await this.lastRequest(conversation))) : undefined
      const verdict = this.explainer.explain(previous, request)
      return { conversation: key, verdict, header: cacheHeader(verdict) }
    })
    this.queue = next.catch(() => undefined)
    return next
  }

  /**
   * The conversation a request belongs to: the explicit one; else, of the conversations of its group, the one it
   * continues most closely (conversation.ts); else a new one (a side call, or a conversation never seen).
   */
  private async keyOf(request: CacheRequest, explicit?: string): Promise<{ key: string; group?: string }> {
    const layout = this.explainer.layout(request)
    const keys = conversationKeys(layout, explicit)
    if (!keys.group) return keys
    let best: { key: string; score: number; at: number } | undefined
    for (const key of this.byGroup.get(keys.group) ?? []) {
      const conversation = this.conversations.get(key)
      const last = conversation && (conversation.last ?? (await this.lastRequest(conversation)))
      if (!conversation || !last) continue
      const score = affinity(this.explainer.layout(last), layout)
      if (score === undefined) continue
      if (!best || score > best.score || (score === best.score && conversation.lastAt > best.at))
        best = { key, score, at: conversation.lastAt }
    }
    if (best) return { key: best.key, group: keys.group }
    let key = keys.key
    for (let n = 2; this.conversations.has(key); n++) key = `${keys.key}-${n}`
    return { key, group: keys.group }
  }

  private join(key: string, group: string): void {
    const keys = this.byGroup.get(group) ?? new Set<string>()
    keys.add(key)
    this.byGroup.set(group, keys)
  }

  private async recordNow(input: TraceInput): Promise<TraceRecord> {
    await this.load()
    const request = requestOf(input)
    const keys = await this.keyOf(request, input.conversation)
    const key = keys.key
    let conversation = this.conversations.get(key)
    if (!conversation) {
      conversation = { key, lines: [], lastAt: input.at, ...(keys.group ? { group: keys.group } : {}) }
      this.conversations.set(key, conversation)
      if (keys.group) this.join(key, keys.group)
    }
    const previous = conversation.last ?? (await this.lastRequest(conversation))
    const verdict = this.explainer.explain(previous, request, input.usage)
    const line: TraceLine = {
      v: 1,
      n: conversation.lines.length + 1,
      at: input.at,
      ...(input.durationMs !== undefined ? { durationMs: input.durationMs } : {}),
      ...(input.firstByteMs !== undefined ? { firstByteMs: input.firstByteMs } : {}),
      clientApi: input.clientApi,
      upstream: { ...input.upstream, ...(input.upstream.url ? { url: redactUrl(input.upstream.url) } : {}) },
      model: input.model,
      conversation: key,
      ...(keys.group ? { group: keys.group } : {}),
      ...(input.received ? { received: await this.stored(input.received) } : {}),
      sent: await this.stored(input.sent),
      ...(input.usage ? { usage: input.usage } : {}),
      ...(input.status !== undefined ? { status: input.status } : {}),
      ...(input.error !== undefined ? { error: input.error } : {}),
      ...(input.attempts ? { attempts: input.attempts } : {}),
      verdict,
    }
    conversation.lines.push(JSON.stringify(line))
    conversation.last = request
    conversation.lastAt = input.at
    await writeFileAtomic(this.fileOf(key), `${conversation.lines.join("\n")}\n`, {
      createFolders: true,
      durable: false,
      mode: TRACE_FILE_MODE,
    })
    await this.retain(input.at)
    return { conversation: key, index: line.n, verdict, header: cacheHeader(verdict) }
  }

  private fileOf(key: string): string {
    return join(this.dir, "conversations", `${key}.jsonl`)
  }

  private async stored(message: TracedMessage): Promise<StoredMessage> {
    return {
      ...(message.url ? { url: redactUrl(message.url) } : {}),
      ...(message.headers ? { headers: redactHeaders(message.headers) } : {}),
      body: await this.blobs.putBody(message.body),
    }
  }

  /** The previous request of a conversation read back from its file (after a restart). */
  private async lastRequest(conversation: Conversation): Promise<CacheRequest | undefined> {
    const line = lastTraceLine(conversation.lines)
    if (!line) return undefined
    const body = await this.blobs.getBody(line.sent.body)
    conversation.last = { format: line.upstream.format, body, at: line.at, model: line.model }
    return conversation.last
  }

  /** Reads the folder's conversations once: their lines, keys and last request times. */
  private async load(): Promise<void> {
    if (this.loaded) return
    this.loaded = true
    await makePrivateFolder(join(this.dir, "conversations"))
    await this.blobs.open()
    for (const name of (await readdir(join(this.dir, "conversations"))).sort()) {
      if (!name.endsWith(".jsonl")) continue
      const lines = (await readFile(join(this.dir, "conversations", name), "utf8")).split("\n").filter((l) => l.trim())
      if (lines.length === 0) continue
      // A torn or foreign line is kept as it is (the file is only ever appended to); the last good line speaks for
      // the conversation, and one without any is still known, so its file is never written over.
      const line = lastTraceLine(lines)
      const key = name.replace(/\.jsonl$/, "")
      // Lines written before groups name their first-user-message key `loose`: the same value.
      const group = line?.group ?? line?.loose
      this.conversations.set(key, { key, lines, lastAt: line?.at ?? 0, ...(group ? { group } : {}) })
      if (group) this.join(key, group)
    }
  }

  /** Applies the retention limits, `now` being the time of the request just recorded. */
  private async retain(now: number): Promise<void> {
    const limits = this.options.retention
    if (!limits) return
    const byAge = () =>
      [...this.conversations.values()].sort((a, b) => b.lastAt - a.lastAt || a.key.localeCompare(b.key))
    const drop = new Set<Conversation>()
    if (limits.maxAgeDays !== undefined)
      for (const c of byAge()) if (now - c.lastAt > limits.maxAgeDays * 86_400_000) drop.add(c)
    if (limits.maxConversations !== undefined) for (const c of byAge().slice(limits.maxConversations)) drop.add(c)
    if (drop.size > 0) await this.remove(drop)
    if (limits.maxBytes === undefined) return
    // The newest conversation always stays, even alone over the limit.
    while (this.conversations.size > 1 && (await folderBytes(this.dir)) > limits.maxBytes)
      await this.remove(new Set([byAge().at(-1)!]))
  }

  /** Removes conversations and the blobs no other conversation reaches. */
  private async remove(drop: ReadonlySet<Conversation>): Promise<void> {
    for (const c of drop) {
      this.conversations.delete(c.key)
      if (c.group) this.byGroup.get(c.group)?.delete(c.key)
      await rm(this.fileOf(c.key), { force: true })
    }
    const keep = new Set<string>()
    for (const c of this.conversations.values())
      for (const text of c.lines) {
        const line = parseTraceLine(text)
        if (typeof line === "string") continue
        await this.blobs.reach(line.sent.body, keep)
        if (line.received) await this.blobs.reach(line.received.body, keep)
      }
    await this.blobs.sweep(keep)
  }
}

/** The last line of a conversation's lines that is a trace line. */
function lastTraceLine(lines: readonly string[]): TraceLine | undefined {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = parseTraceLine(lines[i]!)
    if (typeof line !== "string") return line
  }
  return undefined
}

function requestOf(input: Pick<TraceInput, "at" | "upstream" | "model" | "sent">): CacheRequest {
  return { format: input.upstream.format, body: input.sent.body, at: input.at, model: input.model }
}

/** Bytes of every file under a folder. */
async function folderBytes(dir: string): Promise<number> {
  let n = 0
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name)
    n += entry.isDirectory() ? await folderBytes(path) : (await stat(path).catch(() => ({ size: 0 }))).size
  }
  return n
}
