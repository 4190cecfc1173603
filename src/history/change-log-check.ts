import { readFile } from "node:fs/promises"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { parseJsonDocument } from "../json.js"
import { ChangeLog } from "./change-log.js"
import type { Message } from "./message.js"

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
  try {
    // fromJSON with the history checks the edits against it (edit-check.ts): an unsound log is refused.
    return {
      changeLog: ChangeLog.fromJSON(parseJsonDocument(raw, path, "change-log-invalid"), history),
      diagnostics: [],
    }
  } catch (error) {
    if (!(error instanceof PromptlineError)) throw error
    return rebuilt(error.message)
  }
}
