/**
 * Turn order: the repairs an encoder makes so that any history becomes a message sequence its provider
 * accepts. Consecutive messages of one role are merged where the provider wants turns to alternate, and a
 * short user turn is put first where the provider wants the conversation to start with the user (and where
 * nothing is left to send). Each repair is reported as a diagnostic.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.js"

/** The text of the user turn put before a history that starts with the assistant, or that is empty. */
export const CONTINUATION_TEXT = "(conversation continues)"

/** The role of a wire message as turn order sees it; `other` (system, tool messages) is neither turn. */
export type TurnRole = "user" | "assistant" | "other"

/** How one wire format's messages are read and built for the turn repairs. */
export interface TurnRules<M> {
  roleOf: (message: M) => TurnRole
  /** A user turn holding `text`. */
  userTurn: (text: string) => M
  /** Joins two consecutive messages of one role; absent when the provider takes them as they are. */
  merge?: (first: M, second: M) => M
  /** The provider refuses a conversation whose first turn is the assistant's. */
  userFirst: boolean
}

/**
 * Repairs the turn order of encoded messages: merges consecutive same-role turns (when `merge` is given),
 * puts a user turn before a leading assistant turn (when `userFirst`), and gives a conversation with no
 * turn at all a user turn. `system` messages at the start stay first. The input array is not modified.
 */
export function repairTurns<M>(
  messages: readonly M[],
  rules: TurnRules<M>,
): { messages: M[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = []
  const out: M[] = []
  let merged = 0
  for (const message of messages) {
    const role = rules.roleOf(message)
    const last = out[out.length - 1]
    if (rules.merge && last !== undefined && role !== "other" && rules.roleOf(last) === role) {
      out[out.length - 1] = rules.merge(last, message)
      merged++
    } else out.push(message)
  }
  if (merged > 0)
    diagnostics.push(
      diagnostic(
        "info",
        "messages-merged",
        `${merged} message${merged === 1 ? "" : "s"} joined to the one before: same role`,
      ),
    )
  const first = out.findIndex((m) => rules.roleOf(m) !== "other")
  const leading = first === -1 ? undefined : rules.roleOf(out[first]!)
  if (leading === undefined || (leading === "assistant" && rules.userFirst)) {
    const at = first === -1 ? out.length : first
    out.splice(at, 0, rules.userTurn(CONTINUATION_TEXT))
    diagnostics.push(
      diagnostic(
        "warning",
        "user-turn-inserted",
        leading === undefined
          ? `nothing in the history can be sent; a user turn "${CONTINUATION_TEXT}" was sent instead`
          : `the history starts with an assistant turn; a user turn "${CONTINUATION_TEXT}" was put before it`,
      ),
    )
  }
  return { messages: out, diagnostics }
}
