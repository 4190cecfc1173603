import { PromptlineError } from "../../errors.js"
import type { WireFormat } from "../../models/types.js"
import type { DecodeStats, StreamEvent } from "../../providers/stream.js"

/**
 * A provider's answer to one request, once it started: iterate it (or its batches) for the stream
 * events; `stats` holds the decoder's counters, complete once iteration ended. It can be read once.
 */
export interface ProviderResponse extends AsyncIterable<StreamEvent> {
  readonly format: WireFormat
  /** The HTTP status of the answer (200; 101 for a WebSocket). */
  readonly status: number
  /** The provider's request id (`request-id`, `x-request-id`), for bug reports. */
  readonly requestId: string | undefined
  /** Attempts it took: 1, plus the retries. */
  readonly attempts: number
  readonly stats: DecodeStats
  /** The events in batches, one per network chunk or frame. */
  batches(): AsyncGenerator<StreamEvent[]>
}

/** Thrown when a response is iterated a second time (its body was consumed by the first). */
export class ResponseConsumedError extends PromptlineError {
  constructor() {
    super("response-consumed", "this response was already read; a response can be iterated once")
  }
}

/** The shared half of every response: one-shot iteration over batches. */
export abstract class OneShotResponse implements ProviderResponse {
  abstract readonly format: WireFormat
  abstract readonly status: number
  abstract readonly requestId: string | undefined
  abstract readonly attempts: number
  abstract readonly stats: DecodeStats
  #read = false

  /** The batches of the body; called once. */
  protected abstract produce(): AsyncGenerator<StreamEvent[]>

  batches(): AsyncGenerator<StreamEvent[]> {
    if (this.#read) throw new ResponseConsumedError()
    this.#read = true
    return this.produce()
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamEvent> {
    for await (const batch of this.batches()) yield* batch
  }
}
