/**
 * The change logs of the conversations a gateway fits (a route with `fit: true`), by conversation key. Fitting a
 * request with the conversation's earlier edits keeps what was cut or deduplicated the same from one request to
 * the next, so the prefix the provider cached stays byte-stable; without them every request is fitted afresh and
 * its cuts move. Bounded: the least recently used conversation goes first. The state only helps: a gateway that
 * never saw a conversation (another instance, a restart) fits it correctly, with one cache miss.
 */
import { setBounded } from "../bounded-map.js"
import { ChangeLog } from "../history/change-log.js"

/** How many conversations a gateway keeps change logs for by default. */
export const DEFAULT_CONVERSATION_LOGS = 1000

/** A bounded map of change logs by conversation key. */
export class ConversationChangeLogs {
  readonly #logs = new Map<string, ChangeLog>()

  constructor(readonly limit = DEFAULT_CONVERSATION_LOGS) {}

  /** The conversation's change log (a new one the first time), marked as the most recently used. */
  for(key: string): ChangeLog {
    let log = this.#logs.get(key)
    if (log) this.#logs.delete(key)
    else log = new ChangeLog()
    setBounded(this.#logs, key, log, this.limit)
    return log
  }

  /** How many conversations are kept. */
  get size(): number {
    return this.#logs.size
  }
}
