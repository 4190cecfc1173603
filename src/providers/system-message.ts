/**
 * Mid-conversation system messages on the wire: the one form every encoder falls back to where its provider
 * (or model) has no system message at that point, a `<system-reminder>` in a user turn.
 */
import { type Message, textOf } from "../history/message.js"
import { wrapTag } from "../tag-wrap.js"

/** The tag a system message's text is wrapped in when it travels inside a user turn. */
export const SYSTEM_REMINDER_TAG = "system-reminder"

/** The text of a system message (its text blocks, joined by blank lines). */
export function systemText(message: Pick<Message, "content">): string {
  return textOf(message)
}

/** A system message's text as a `<system-reminder>` for a user turn. */
export function systemReminder(text: string): string {
  return wrapTag(SYSTEM_REMINDER_TAG, text)
}
