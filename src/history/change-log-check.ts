import { readFile } from "node:fs/promises"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { parseJsonDocument } from "../json.js"
import { ChangeLog } from "./change-log.js"
import type { Edit } from "./edits.js"
import { blockSchema } from "./history-file.js"
import type { Block, Message } from "./message.js"

/**
 * Checks of a loaded change log against the history it edits. A log can be valid JSON of the right
 * schema and still be wrong for this history (edited by hand, saved for another session, or left
 * behind by a history that lost lines): applying it would hide the task or orphan tool results.
 */

/** Whether a replacement keeps a block's role in the tool-call pairing (same call id, or no call at all). */
function keepsPairing(original: Block, replacement: Block): boolean {
  if (original.type === "tool_result")
    return replacement.type === "tool_result" && replacement.toolUseId === original.toolUseId
  if (original.type === "tool_use") return replacement.type === "tool_use" && replacement.id === original.id
  return replacement.type !== "tool_result" && replacement.type !== "tool_use"
}

/** One line per edit that cannot apply to `history`; an empty list when every edit is sound. */
export function checkEdits(edits: readonly Edit[], history: readonly Message[]): string[] {
  const position = new Map(history.map((m, i) => [m.id, i]))
  const problems: string[] = []
  edits.forEach((e, i) => {
    const where = `edit ${i + 1} (${e.kind})`
    if (e.kind === "truncation" || e.kind === "compaction") {
      const from = position.get(e.from)
      const to = position.get(e.to)
      if (from === undefined || to === undefined)
        problems.push(`${where} names a message that is not in the history (${from === undefined ? e.from : e.to})`)
      else if (to < from) problems.push(`${where} ends before it starts`)
      else if (from < 2) problems.push(`${where} hides part of the first exchange (the task)`)
      return
    }
    const index = position.get(e.messageId)
    if (index === undefined) {
      problems.push(`${where} names a message that is not in the history (${e.messageId})`)
      return
    }
    if (!("block" in e)) return
    const original = history[index]!.content[e.block]
    if (!original) {
      problems.push(`${where} replaces block ${e.block} of ${e.messageId}, which has no such block`)
      return
    }
    if (!blockSchema.safeParse(e.content).success) {
      problems.push(`${where} puts a block that is not a valid content block into ${e.messageId}`)
      return
    }
    if (!keepsPairing(original, e.content))
      problems.push(`${where} replaces a ${original.type} block of ${e.messageId} with a ${e.content.type} block`)
  })
  return problems
}

/**
 * Loads a session's change log for `history`, never failing: a missing file is an empty log; a file
 * that cannot be read, is not a change log, or does not fit the history is set aside with a warning and
 * the log starts empty (rebuilt: the next fit makes again the edits it needs).
 */
export async function loadChangeLogFor(
  path: string,
  history: readonly Message[],
): Promise<{ changeLog: ChangeLog; diagnostics: Diagnostic[] }> {
  const rebuilt = (why: string) => ({
    changeLog: new ChangeLog(),
    diagnostics: [
      diagnostic(
        "warning",
        "change-log-rebuilt",
        `${why}; the change log starts empty and the next fit makes the edits it needs again`,
        { path },
      ),
    ],
  })
  let raw: string
  try {
    raw = await readFile(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { changeLog: new ChangeLog(), diagnostics: [] }
    return rebuilt(`the file cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`)
  }
  let changeLog: ChangeLog
  try {
    changeLog = ChangeLog.fromJSON(parseJsonDocument(raw, path, "change-log-invalid"), history)
  } catch (error) {
    if (!(error instanceof PromptlineError)) throw error
    return rebuilt(error.message)
  }
  const problems = checkEdits(changeLog.edits, history)
  if (problems.length > 0) return rebuilt(`it does not fit the history: ${problems.join("; ")}`)
  return { changeLog, diagnostics: [] }
}
