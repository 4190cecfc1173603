/**
 * A translation with the client's deferred tools resolved: the planned request opened in place of the client's,
 * and, when the gateway searches for the upstream, the rounds of the search loop read as one answer. The opening
 * of one upstream answer is given in (translate.ts), so this module knows no transport.
 */
import type { StreamEvent } from "../../providers/stream.js"
import type { DecodedRequest } from "../../providers/types.js"
import { errorInputOf } from "../errors.js"
import { batchesOf } from "./batches.js"
import { searchLoop, type UpstreamRound } from "./loop.js"
import type { DeferredToolsPlan } from "./plan.js"

/** An upstream answer opened for reading (translate.ts's `Translation`). */
export interface OpenedAnswer {
  read(each: (batch: StreamEvent[]) => void, mode?: "streamed" | "whole"): Promise<void>
}

/** What opening the planned request needs: the plan, how to open one upstream answer, what to note of the answer. */
export interface DeferredOpening<A extends OpenedAnswer> {
  /** `resolveDeferredTools`'s plan; undefined: the request is opened as it came. */
  plan: DeferredToolsPlan | undefined
  /** Opens one upstream answer for a request; throws when the upstream refused it before any byte. */
  open(request: DecodedRequest): Promise<A>
  /**
   * The answer the client is given, batch by batch, when it is the loop's (several upstream answers as one): noted,
   * and returned as the client may see it (secrets redacted from an error a later round's refusal made).
   */
  joined?(batch: StreamEvent[]): StreamEvent[]
}

/**
 * Opens `request` as the plan says: unplanned as it came; planned without a search, the planned request; with the
 * gateway's search, the first round now (its refusal is the request's), later rounds as the model searches, an
 * upstream that refuses one of them ending the answer with its error.
 */
export async function openDeferred<A extends OpenedAnswer>(
  request: DecodedRequest,
  opening: DeferredOpening<A>,
): Promise<A> {
  const { plan } = opening
  if (!plan) return opening.open(request)
  const first = await opening.open(plan.request)
  const search = plan.search
  if (!search) return first
  const read = async (each: (batch: StreamEvent[]) => void, mode: "streamed" | "whole" = "streamed") => {
    const call: UpstreamRound = async function* (round, n) {
      let answer: A
      try {
        answer = n === 0 ? first : await opening.open({ ...plan.request, ...round })
      } catch (error) {
        yield [refusedEvent(error)]
        return
      }
      yield* batchesOf((batch) => answer.read(batch, mode)).batches
    }
    for await (const batch of searchLoop({ request: plan.request, search, call }))
      each(opening.joined ? opening.joined(batch) : batch)
  }
  return { ...first, read }
}

/** A later round the upstream refused, as the error event that ends the client's answer. */
function refusedEvent(error: unknown): StreamEvent {
  const { input } = errorInputOf(error)
  const kind = input.kind === "not-found" || input.kind === "overloaded" ? "server" : input.kind
  return { type: "error", kind, message: input.message }
}
