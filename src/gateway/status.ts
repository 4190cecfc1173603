/**
 * The gateway's live status, kept in memory from the records of finished requests: the totals so far (requests,
 * tokens, cached share, cost at catalog prices, errors), each upstream's health, and the most recent requests. Each
 * record updates it in O(1) once its answer ended; nothing of a request's content is kept (no bodies, no prompt
 * text, no error messages, no keys).
 */
import { UsageTally, type UsageTotals } from "../cache/usage.js"
import type { UpstreamConfig } from "../config/gateway.js"
import { type Cost, PriceList } from "../models/cost.js"
import type { ModelInfo, WireFormat } from "../models/types.js"
import { logField } from "./log.js"
import type { GatewayRecord } from "./record.js"
import { usageEntryOfRecord } from "./record-usage.js"

/** How many recent requests the status keeps. */
export const RECENT_REQUESTS = 50

/** One recent request as the status shows it: what, where, how it ended, what it used and cost. */
export interface RecentRequest {
  seq: number
  /** When it arrived (milliseconds since the epoch). */
  at: number
  latencyMs: number
  transport: "http" | "websocket"
  /** The API the client spoke. */
  clientApi: string
  /** The model the client asked for (cut to 200 characters, on one line). */
  model: string
  /** The upstream's name and the model asked of it, when one was chosen. */
  upstream?: string
  upstreamModel?: string
  mode?: string
  status: number
  tokens?: { input: number; cacheRead: number; cacheWrite: number; output: number }
  /** US dollars at catalog prices; `null` when the model has no price; absent without usage. */
  cost?: Cost | null
  /** The kind of failure (`rate-limit`, `auth`, `network`, …); never its message, which may quote a request. */
  error?: string
}

/** What a circuit breaker says of an upstream (set by whatever keeps one; shown as given). */
export interface UpstreamCircuit {
  state: "closed" | "open" | "half-open"
  /** A short note: why it opened, when it is tried again. */
  detail?: string
}

/** One upstream's health: the requests sent to it, how many failed, and how the last one ended. */
export interface UpstreamHealth {
  name: string
  provider: string
  format?: WireFormat
  requests: number
  errors: number
  lastStatus?: number
  lastAt?: number
  /** The kind of the last failure. */
  lastError?: string
  circuit?: UpstreamCircuit
}

/** The status at one moment (`/promptline/status.json`). */
export interface GatewayStatusSnapshot {
  v: 1
  /** When the gateway started, and now (milliseconds since the epoch). */
  startedAt: number
  now: number
  totals: UsageTotals
  /** Configured upstreams first, in the config's order, then the others as they were first used. */
  upstreams: UpstreamHealth[]
  /** The most recent requests, newest first (at most RECENT_REQUESTS). */
  recent: RecentRequest[]
}

/** Options of a gateway status. */
export interface GatewayStatusOptions {
  startedAt: number
  /** The user's model rows (prices the catalog lacks). */
  models?: readonly ModelInfo[]
  /** The config's upstreams, listed before any request reached them. */
  upstreams?: Readonly<Record<string, UpstreamConfig>>
}

/** The gateway's counters; `add` is called once per finished request. */
export class GatewayStatus {
  readonly #tally: UsageTally
  readonly #recent: (RecentRequest | undefined)[] = new Array(RECENT_REQUESTS)
  #next = 0
  readonly #upstreams = new Map<string, UpstreamHealth>()

  constructor(private readonly options: GatewayStatusOptions) {
    this.#tally = new UsageTally(new PriceList(options.models ?? []))
    for (const [name, upstream] of Object.entries(options.upstreams ?? {}))
      this.#upstreams.set(name, {
        name,
        provider: upstream.provider,
        ...(upstream.format ? { format: upstream.format } : {}),
        requests: 0,
        errors: 0,
      })
  }

  /** Counts a finished request: the totals and its upstream's health (when it was routed), the recent list. */
  add(record: GatewayRecord): void {
    const up = record.upstream
    // A call the gateway answered alone (a model list, a probe, a refusal before routing) is no model request:
    // it is listed, not counted.
    const entry = up ? usageEntryOfRecord(record) : undefined
    const cost = entry ? this.#tally.add(entry) : undefined
    if (up && entry && record.sent) {
      let health = this.#upstreams.get(up.name)
      if (!health) {
        health = { name: up.name, provider: up.provider, format: up.format, requests: 0, errors: 0 }
        this.#upstreams.set(up.name, health)
      }
      health.requests++
      health.lastStatus = record.status
      health.lastAt = record.startedAt
      if (entry.failed) {
        health.errors++
        health.lastError = record.error?.kind ?? `HTTP ${record.status}`
      }
    }
    this.#recent[this.#next] = recentOf(record, cost)
    this.#next = (this.#next + 1) % RECENT_REQUESTS
  }

  /** Sets (or clears) what a circuit breaker says of an upstream. */
  setCircuit(upstream: string, circuit: UpstreamCircuit | undefined): void {
    const health = this.#upstreams.get(upstream)
    if (!health) return
    if (circuit) health.circuit = { ...circuit }
    else delete health.circuit
  }

  /** The totals since the gateway started. */
  usage(): UsageTotals {
    return this.#tally.totals()
  }

  /** The status at `now`. */
  snapshot(now: number): GatewayStatusSnapshot {
    const recent: RecentRequest[] = []
    for (let i = 1; i <= RECENT_REQUESTS; i++) {
      const r = this.#recent[(this.#next - i + RECENT_REQUESTS) % RECENT_REQUESTS]
      if (r) recent.push(r)
    }
    return {
      v: 1,
      startedAt: this.options.startedAt,
      now,
      totals: this.#tally.totals(),
      upstreams: [...this.#upstreams.values()].map((u) => ({
        ...u,
        ...(u.circuit ? { circuit: { ...u.circuit } } : {}),
      })),
      recent,
    }
  }
}

/** What the recent list keeps of a record: no bodies, headers, conversation key or error message. */
function recentOf(record: GatewayRecord, cost: Cost | undefined): RecentRequest {
  const u = record.usage
  return {
    seq: record.seq,
    at: record.startedAt,
    latencyMs: record.latencyMs,
    transport: record.transport,
    clientApi: record.clientFormat,
    model: logField(record.model),
    ...(record.upstream ? { upstream: record.upstream.name, upstreamModel: logField(record.upstream.model) } : {}),
    ...(record.mode ? { mode: record.mode } : {}),
    status: record.status,
    ...(u
      ? {
          tokens: { input: u.input, cacheRead: u.cacheRead, cacheWrite: u.cacheWrite, output: u.output },
          cost: cost ?? null,
        }
      : {}),
    ...(record.error ? { error: record.error.kind } : {}),
  }
}
