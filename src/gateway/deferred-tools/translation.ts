/**
 * A translation attempt with the client's deferred tools resolved: the planned request attempted in place of the
 * client's, and, when the gateway searches for the upstream, the rounds of the search loop read as one answer. Every
 * round is an attempt on the same target; how one round is attempted is given in (gateway/translation.ts), so this
 * module knows no transport and no target.
 */
import type { StreamEvent } from "../../providers/stream.js"
import type { DecodedRequest } from "../../providers/types.js"
import type { Attempt } from "../attempt.js"
import { errorInputOf } from "../errors.js"
import { type AnswerFacts, withEvents } from "../outcome.js"
import { batchesOf } from "./batches.js"
import { searchLoop, type UpstreamRound } from "./loop.js"
import type { DeferredToolsPlan } from "./plan.js"

/** An upstream answer that began (gateway/translation.ts's `Translation`): read batch by batch, with its facts. */
export interface OpenedAnswer {
  read(each: (batch: StreamEvent[]) => void, mode?: "streamed" | "whole"): Promise<AnswerFacts>
}

/** What attempting the planned request needs: the plan, how to attempt one round, how the client may see a batch. */
export interface DeferredOpening<A extends OpenedAnswer, E> {
  /** `resolveDeferredTools`'s plan; undefined: the request is attempted as it came. */
  plan: DeferredToolsPlan | undefined
  /** One attempt on the target for a request; a refusal before any byte is a failed attempt, not a throw. */
  open(request: DecodedRequest): Promise<Attempt<A> & E>
  /**
   * The error a later round's refusal made, as the client may see it (secrets redacted); the rounds' own batches
   * come from `open` as the client may see them.
   */
  joined?(batch: StreamEvent[]): StreamEvent[]
}

/**
 * Attempts `request` as the plan says: unplanned as it came; planned without a search, the planned request; with
 * the gateway's search, the first round now (its failure is the attempt's, what it sent and dropped the attempt's
 * record), later rounds as the model searches, a round the target refuses ending the answer with its error. The
 * answer's facts are those of the joined answer: the usage of every round added up, the last round's stop.
 */
export async function openDeferred<A extends OpenedAnswer, E>(
  request: DecodedRequest,
  opening: DeferredOpening<A, E>,
): Promise<Attempt<A> & E> {
  const { plan } = opening
  if (!plan) return opening.open(request)
  const first = await opening.open(plan.request)
  const search = plan.search
  if (!search || !first.ok) return first
  const read = async (each: (batch: StreamEvent[]) => void, mode: "streamed" | "whole" = "streamed") => {
    const call: UpstreamRound = async function* (round, n) {
      const attempt = n === 0 ? first : await opening.open({ ...plan.request, ...round })
      if (!attempt.ok) {
        const refused = [refusedEvent(attempt.failure.error)]
        yield opening.joined ? opening.joined(refused) : refused
        return
      }
      yield* batchesOf((batch) => attempt.started.read(batch, mode)).batches
    }
    let facts: AnswerFacts = {}
    for await (const batch of searchLoop({ request: plan.request, search, call })) {
      facts = withEvents(facts, batch)
      each(batch)
    }
    return facts
  }
  return { ...first, started: { ...first.started, read } }
}

/** A later round the target refused, as the error event that ends the client's answer. */
function refusedEvent(error: unknown): StreamEvent {
  const { input } = errorInputOf(error)
  const kind = input.kind === "not-found" || input.kind === "overloaded" ? "server" : input.kind
  return { type: "error", kind, message: input.message }
}
