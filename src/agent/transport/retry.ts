import { ProviderError, parseDuration } from "../../providers/errors.js"

/** The numbers of the backoff: how many retries, how long the waits, how much jitter. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  maxRetries: number
  /** The first wait when the provider names none, in milliseconds (default 1000); it doubles per retry. */
  initialDelayMs: number
  /** The longest computed wait (default 32 000). */
  maxDelayMs: number
  /** The longest wait a provider's retry-after is honoured up to (default 60 000); longer asks are cut to it. */
  maxRetryAfterMs: number
  /** The share of a computed wait that random jitter may take off, 0 to 1 (default 0.25). */
  jitter: number
}

/** The default policy: 4 retries, 1 s doubling up to 32 s, jitter up to a quarter, retry-after honoured up to 60 s. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = {
  maxRetries: 4,
  initialDelayMs: 1000,
  maxDelayMs: 32_000,
  maxRetryAfterMs: 60_000,
  jitter: 0.25,
}

/** Waits `ms` milliseconds; rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>

/** One retry about to happen: which one (1-based), how long the wait is, and the error that caused it. */
export interface RetryInfo {
  attempt: number
  delayMs: number
  error: ProviderError
}

/** The policy, plus the sources of randomness and time (injectable so tests neither wait nor guess). */
export interface RetryOptions extends Partial<RetryPolicy> {
  /** A number in [0, 1); default Math.random. */
  random?: () => number
  /** Default: a timer that an AbortSignal cancels. */
  sleep?: Sleep
}

/** The wait before retry number `attempt` (1-based): the provider's retry-after (capped), else capped doubling with jitter. */
export function retryDelay(attempt: number, error: ProviderError, policy: RetryPolicy, random: number): number {
  if (error.retryAfterMs !== undefined) return Math.max(0, Math.min(error.retryAfterMs, policy.maxRetryAfterMs))
  const base = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1))
  const jitter = Math.min(1, Math.max(0, policy.jitter))
  return Math.round(base * (1 - jitter * Math.min(1, Math.max(0, random))))
}

/** A timer-based Sleep that an AbortSignal cancels (rejecting with the signal's reason). */
export const abortableSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason)
      return
    }
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort)
      resolve()
    }, ms)
    signal?.addEventListener("abort", onAbort, { once: true })
  })

/** What `withRetry` needs besides the attempt: the policy, the signal, and who hears about retries. */
export interface WithRetryOptions extends RetryOptions {
  signal?: AbortSignal
  onRetry?: (info: RetryInfo) => void
}

/**
 * Runs `attempt` (given its 0-based number) until it succeeds, retrying retryable ProviderErrors
 * (rate limits, server errors, network failures) after a backoff. Other errors, and the last
 * retryable one once the retries are used up, are thrown; an abort throws the signal's reason.
 */
export async function withRetry<T>(attempt: (n: number) => Promise<T>, options: WithRetryOptions = {}): Promise<T> {
  const policy = policyOf(options)
  const random = options.random ?? Math.random
  const sleep = options.sleep ?? abortableSleep
  const { signal } = options
  for (let n = 0; ; n++) {
    if (signal?.aborted) throw signal.reason
    try {
      return await attempt(n)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      if (!(error instanceof ProviderError) || !error.retryable) throw error
      if (n >= policy.maxRetries) throw n === 0 ? error : gaveUp(error, n)
      const delayMs = retryDelay(n + 1, error, policy, random())
      options.onRetry?.({ attempt: n + 1, delayMs, error })
      await sleep(delayMs, signal)
    }
  }
}

/** The full policy from partial options. */
export function policyOf(options: Partial<RetryPolicy>): RetryPolicy {
  return {
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    initialDelayMs: options.initialDelayMs ?? DEFAULT_RETRY_POLICY.initialDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    jitter: options.jitter ?? DEFAULT_RETRY_POLICY.jitter,
  }
}

/** The last error again, its message saying how many retries were spent; kind, status and body are kept. */
function gaveUp(error: ProviderError, retries: number): ProviderError {
  const options: { status?: number; retryAfterMs?: number; body?: string; cause: unknown } = { cause: error }
  if (error.status !== undefined) options.status = error.status
  if (error.retryAfterMs !== undefined) options.retryAfterMs = error.retryAfterMs
  if (error.body !== undefined) options.body = error.body
  const times = retries === 1 ? "1 retry" : `${retries} retries`
  return new ProviderError(error.kind, `${error.message} (gave up after ${times})`, options)
}

/** The wait named in an error message, as OpenAI writes it ("Please try again in 1.5s", "in 20ms"). */
export function retryAfterInMessage(message: string): number | undefined {
  const match = /try again in (\d+(?:\.\d+)?(?:ms|s|m|h)(?:\d+(?:\.\d+)?(?:ms|s|m|h))*)/i.exec(message)
  return match ? parseDuration(match[1]!) : undefined
}
