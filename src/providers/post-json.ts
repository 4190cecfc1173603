import type { Endpoint } from "./endpoints.js"
import { classifyHttpError, networkError } from "./errors.js"
import { obj } from "./stream.js"

/** How a one-shot JSON call is made: its cancellation, and the fetch to use (tests pass their own). */
export interface JsonCallOptions {
  signal?: AbortSignal
  fetch?: typeof fetch
}

/**
 * POSTs `body` as JSON to `url` with the endpoint's headers and reads the whole answer: a failed connection is a
 * network error, an error status the provider's classified error (typed as for `send`), an abort its reason.
 * Returns the answer's JSON object, or undefined when the answer is not one (the caller says what it missed).
 */
export async function postJson(
  endpoint: Endpoint,
  url: string,
  body: unknown,
  options: JsonCallOptions = {},
): Promise<Record<string, unknown> | undefined> {
  let response: Response
  try {
    response = await (options.fetch ?? fetch)(url, {
      method: "POST",
      headers: { ...endpoint.headers },
      body: JSON.stringify(body),
      ...(options.signal ? { signal: options.signal } : {}),
    })
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason
    throw networkError(error instanceof TypeError && error.cause !== undefined ? error.cause : error)
  }
  const text = await response.text().catch(() => "")
  if (!response.ok) throw classifyHttpError({ status: response.status, body: text, headers: response.headers, now: 0 })
  try {
    return obj(JSON.parse(text))
  } catch {
    return undefined
  }
}
