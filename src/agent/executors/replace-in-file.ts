import { readFile } from "node:fs/promises"
import { z } from "zod"
import { pathArg, taskProgressArg } from "./args.js"
import { looksBinary, toolPath, usesCrlf, writeFileAtomic } from "./files.js"
import { count, failure, oneLine, success, writeOf } from "./outcome.js"
import { applyEditBlocks, type BlockResult, parseEditBlocks } from "./search-replace.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  path: pathArg,
  diff: z.string({ error: "expected SEARCH/REPLACE blocks as a string" }).min(1, "must not be empty"),
  task_progress: taskProgressArg,
})

function describe(result: BlockResult): string {
  if (!result.ok)
    return `block ${result.index} (first line: "${oneLine(result.firstLine, 80)}") failed: ${result.reason}`
  const lines =
    result.startLine === result.endLine ? `line ${result.startLine}` : `lines ${result.startLine}-${result.endLine}`
  const how =
    result.strategy === "exact"
      ? ""
      : ` (matched by ${result.strategy === "trimmed" ? "ignoring indentation" : result.strategy === "anchor" ? "its first and last lines" : "empty file"})`
  return `block ${result.index}: now ${lines}${how}`
}

/** replace_in_file: applies SEARCH/REPLACE blocks to one file, writing it once and atomically. */
export const replaceInFileExecutor = defineExecutor({
  id: "replace_in_file",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "write", verb: "edit" })
    if (!found.ok) return found.outcome
    const { where, shown, info, kind } = found
    const { blocks, errors } = parseEditBlocks(input.diff)
    if (blocks.length === 0 || errors.length > 0) {
      const problems = errors.length ? ` Problems: ${errors.join("; ")}.` : ""
      return failure(
        `The diff has ${blocks.length === 0 ? "no" : "malformed"} SEARCH/REPLACE blocks.${problems} ` +
          "Write each block as <<<<<<< SEARCH, the exact lines to find, =======, the new lines, >>>>>>> REPLACE.",
        `edit ${shown}: malformed diff`,
      )
    }
    let original = ""
    if (kind) return failure(`${shown} is ${kind}, not a regular file.`, `edit ${shown}: ${kind}`)
    if (info) {
      const raw = await readFile(where.absolute)
      if (looksBinary(raw.subarray(0, 8192)))
        return failure(`${shown} looks like a binary file.`, `edit ${shown}: binary`)
      original = raw.toString("utf8")
    } else if (blocks.some((b) => b.search.trim() !== "")) {
      return failure(
        `File not found: ${shown}. To create a file use write_to_file (or a block with an empty SEARCH part).`,
        `edit ${shown}: not found`,
      )
    }
    const bom = original.startsWith("\uFEFF") ? "\uFEFF" : ""
    const crlf = usesCrlf(original)
    const text = original.slice(bom.length).replace(/\r\n/g, "\n")
    const applied = applyEditBlocks(text, blocks)
    const failed = applied.results.filter((r) => !r.ok)
    const done = applied.results.length - failed.length
    const report = applied.results.map(describe).join("\n")
    const touched = writeOf(shown)
    if (done === 0) {
      return failure(
        `No change made to ${shown}: ${count(failed.length, "block")} failed.\n${report}\n` +
          "Read the file again and copy the SEARCH lines exactly as they are now.",
        `edit ${shown}: ${count(failed.length, "block")} failed`,
        { details: { applied: 0, failed: failed.map((f) => f.index) } },
      )
    }
    const next = bom + (crlf ? applied.text.replace(/\n/g, "\r\n") : applied.text)
    if (next !== original || !info) {
      try {
        // The real path: a symlink is written through, not replaced by a regular file.
        await writeFileAtomic(where.real, next)
      } catch (error) {
        return failure(`Could not write ${shown}: ${(error as Error).message}`, `edit ${shown} failed`)
      }
    }
    const details = { applied: done, failed: failed.map((f) => f.index) }
    if (failed.length > 0) {
      return failure(
        `Saved ${shown} with ${done} of ${applied.results.length} blocks applied; ${count(failed.length, "block")} failed and changed nothing:\n${report}\n` +
          "Read the file again before retrying the failed blocks (the applied ones are already in it).",
        `edited ${shown} (${done}/${applied.results.length} blocks, ${failed.length} failed)`,
        { touched, details },
      )
    }
    return success(
      `Edited ${shown}: ${count(done, "block")} applied.\n${report}`,
      `edited ${shown} (${count(done, "block")})`,
      {
        touched,
        details,
      },
    )
  },
})
