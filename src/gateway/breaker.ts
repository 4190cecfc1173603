/**
 * The circuit breaker of the upstreams a route falls back between. Failures that say an upstream is unwell (no
 * connection, no headers in time, 429, 5xx, 529) are counted in the state store, so every instance sharing it
 * counts together: `failures` of them within `windowMs`, with no success between, open the upstream's circuit for
 * `cooldownMs`, and requests skip it. When the rest is over the circuit is half-open: one request at a time (per
 * instance) probes it; a success closes it and forgets its failures, a failure opens it again for twice as long,
 * up to `maxCooldownMs`. How many times in a row it opened is this instance's own count.
 */
import type { BreakerPolicy } from "./settings.js"
import type { StateStore } from "./state-store.js"
import type { UpstreamCircuit } from "./status.js"

/** What the breaker says of an upstream before a request is sent to it. */
export type Admission =
  /** Send: the circuit is closed (`failures` noted in its window) or half-open (this request is the probe). */
  | { state: "closed" | "half-open"; failures: number }
  /** Skip: the circuit is open until then (ms since the epoch), or another request is probing it. */
  | { state: "open"; until: number }

/** One breaker per gateway, over the state store's circuit primitives. */
export class CircuitBreaker {
  /** Times in a row each upstream's circuit opened (this instance), for the doubling rest. */
  readonly #opens = new Map<string, number>()
  /** Upstreams a half-open probe is out to. */
  readonly #probing = new Set<string>()

  constructor(
    private readonly store: StateStore,
    private readonly policy: () => BreakerPolicy,
    private readonly clock: () => number,
    /** Hears each change of an upstream's circuit (the status page shows it). */
    private readonly changed: (upstream: string, circuit: UpstreamCircuit) => void,
  ) {}

  /** Whether a request may go to `upstream` now. */
  async admit(upstream: string): Promise<Admission> {
    const now = this.clock()
    const circuit = await this.store.circuit(upstream, now)
    if (circuit.openUntil !== undefined) return { state: "open", until: circuit.openUntil }
    if (!this.#opens.has(upstream)) return { state: "closed", failures: circuit.failures }
    // The rest is over: one probe at a time; the others skip it until the probe has answered.
    if (this.#probing.has(upstream)) return { state: "open", until: now }
    this.#probing.add(upstream)
    this.changed(upstream, { state: "half-open", detail: "one request probes it" })
    return { state: "half-open", failures: circuit.failures }
  }

  /** An admitted request's answer began: a half-open circuit, or one with failures noted, closes. */
  async succeeded(upstream: string, admitted: Admission): Promise<void> {
    if (admitted.state === "open" || (admitted.state === "closed" && admitted.failures === 0)) return
    this.#probing.delete(upstream)
    this.#opens.delete(upstream)
    await this.store.closeCircuit(upstream)
    this.changed(upstream, { state: "closed" })
  }

  /** An admitted request failed in a way that counts against the upstream's health. */
  async failed(upstream: string, admitted: Admission): Promise<void> {
    const policy = this.policy()
    const now = this.clock()
    if (admitted.state === "half-open") {
      this.#probing.delete(upstream)
      return this.#open(upstream, now, "the half-open probe failed")
    }
    const failures = await this.store.noteFailure(upstream, policy.windowMs, now)
    if (failures >= policy.failures) await this.#open(upstream, now, `${failures} failures in a row`)
  }

  /** A half-open probe that ended neither way (the request went elsewhere first) lets the next one probe. */
  released(upstream: string, admitted: Admission): void {
    if (admitted.state === "half-open") this.#probing.delete(upstream)
  }

  /** Rests `upstream` until `until`, as its own `retry-after` asked (longer than the gateway waits). */
  async rest(upstream: string, until: number): Promise<void> {
    const now = this.clock()
    this.#probing.delete(upstream)
    await this.store.openCircuit(upstream, until, now)
    this.changed(upstream, { state: "open", detail: `retry-after: until ${isoTime(until)}` })
  }

  async #open(upstream: string, now: number, why: string): Promise<void> {
    const policy = this.policy()
    const opens = (this.#opens.get(upstream) ?? 0) + 1
    this.#opens.set(upstream, opens)
    const rest = Math.min(policy.maxCooldownMs, policy.cooldownMs * 2 ** Math.min(opens - 1, 30))
    const until = now + rest
    await this.store.openCircuit(upstream, until, now)
    this.changed(upstream, { state: "open", detail: `${why}; tried again at ${isoTime(until)}` })
  }
}

/** A time of day, UTC, to the second. */
function isoTime(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19)
}
