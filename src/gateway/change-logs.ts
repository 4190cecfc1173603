/**
 * The change logs of the conversations a gateway fits (a route with `fit: true`), by conversation key. Fitting a
 * request with the conversation's earlier edits keeps what was cut or deduplicated the same from one request to
 * the next, so the prefix the provider cached stays byte-stable; without them every request is fitted afresh and
 * its cuts move. The logs live in the gateway's state store (state-store.ts), so instances sharing a store cut a
 * conversation in the same place whichever of them a request reaches; each instance keeps the logs it used last
 * (bounded, least recently used out) and reads a stored log again only when another instance saved a newer one.
 * When the store fails, a request goes on with this instance's own log (the store reports the outage).
 */
import { setBounded } from "../bounded-map.js"
import { ChangeLog } from "../history/change-log.js"
import { DEFAULT_CONVERSATIONS, type StateStore } from "./state-store.js"

/** A conversation's change log and the stored version it holds (0: none stored). */
export interface ConversationLog {
  readonly log: ChangeLog
  version: number
}

/** A bounded set of change logs by conversation key, backed by a state store. */
export class ConversationChangeLogs {
  readonly #logs = new Map<string, ConversationLog>()

  /** `onError` hears of a stored log that cannot be read (it is then replaced by the next save). */
  constructor(
    readonly store: StateStore,
    readonly onError: (error: Error) => void = () => {},
    readonly limit = DEFAULT_CONVERSATIONS,
  ) {}

  /**
   * The conversation's change log as stored (a new one when none is), marked as the most recently used. This
   * instance's own log is kept while the store holds its version, and also when the store cannot answer.
   */
  async open(key: string): Promise<ConversationLog> {
    const held = this.#logs.get(key)
    let entry = held
    try {
      const stored = await this.store.conversation(key, held?.version)
      if (!stored) entry = held?.version === 0 ? held : { log: new ChangeLog(), version: 0 }
      else if (stored.state !== undefined) entry = { log: this.#read(key, stored.state), version: stored.version }
    } catch {
      // The store failed (and said so): this instance's own log, or a new one.
    }
    entry ??= { log: new ChangeLog(), version: 0 }
    this.#logs.delete(key)
    setBounded(this.#logs, key, entry, this.limit)
    return entry
  }

  /**
   * Saves the log after a fit changed it. When another instance saved first, this instance's log is dropped and
   * the next request reads the winner's; when the store fails, the log stays this instance's own.
   */
  async save(key: string, entry: ConversationLog): Promise<void> {
    try {
      const version = await this.store.saveConversation(key, JSON.stringify(entry.log.toJSON()), entry.version)
      if (version !== undefined) entry.version = version
      else if (this.#logs.get(key) === entry) this.#logs.delete(key)
    } catch {
      // The store failed (and said so); the log is kept here.
    }
  }

  /** How many conversations this instance holds a log for. */
  get size(): number {
    return this.#logs.size
  }

  /** A stored log; one that cannot be read is reported and replaced by an empty one (the next save overwrites it). */
  #read(key: string, state: string): ChangeLog {
    try {
      return ChangeLog.fromJSON(JSON.parse(state))
    } catch (error) {
      this.onError(
        new Error(
          `the stored change log of conversation ${key} cannot be read, so it is fitted afresh: ${(error as Error).message}`,
        ),
      )
      return new ChangeLog()
    }
  }
}
