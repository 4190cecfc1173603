import path from "node:path"
import { z } from "zod"
import { displayPath } from "../workspace.js"
import { booleanArg, pathArg, taskProgressArg } from "./args.js"
import { toolPath } from "./files.js"
import { count, failure, readOf, success } from "./outcome.js"
import { defineExecutor } from "./types.js"
import { SKIPPED_FOLDERS, walk } from "./walk.js"

const schema = z.object({
  path: pathArg,
  recursive: booleanArg.optional(),
  task_progress: taskProgressArg,
})

/**
 * list_files: a folder's entries (folders end in "/"), gitignore-aware, sorted. Recursive listings
 * go breadth-first so a cut keeps the shallow levels; .git and node_modules are shown, not entered.
 */
export const listFilesExecutor = defineExecutor({
  id: "list_files",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "read", verb: "list", private: "refuse" })
    if (!found.ok) return found.outcome
    const { where, shown, info, kind } = found
    if (!info) return failure(`No such folder: ${shown}.`, `list ${shown}: not found`)
    if (!kind) return failure(`${shown} is a file, not a folder. Use read_file to read it.`, `list ${shown}: a file`)
    if (!info.isDirectory()) return failure(`${shown} is ${kind}, not a folder.`, `list ${shown}: ${kind}`)
    const recursive = input.recursive ?? false
    const limit = env.limits.listMaxEntries
    const lines: string[] = []
    let cut = false
    for await (const entry of walk({
      root: env.workspace,
      start: where.absolute,
      recursive,
      hidden: true,
      order: "breadth",
      limit: limit + 1,
      signal: env.signal,
    })) {
      if (lines.length === limit) {
        cut = true
        break
      }
      const name = displayPath(env.workspace, entry.absolute)
      const skipped = recursive && entry.isDirectory && SKIPPED_FOLDERS.includes(path.basename(entry.absolute))
      lines.push(entry.isDirectory ? `${name}/${skipped ? " (not listed)" : ""}` : name)
    }
    lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const touched = readOf(shown)
    if (lines.length === 0)
      return success(`${shown}/ is empty (or all of it is ignored).`, `listed ${shown} (empty)`, { touched })
    const notice = cut
      ? `\n\n[Showing the first ${limit} entries${recursive ? " (shallowest first)" : ""}; there are more. List a sub-folder to see the rest.]`
      : ""
    return success(
      `${lines.join("\n")}${notice}`,
      `listed ${shown} (${count(lines.length, "entry", "entries")}${cut ? ", cut" : ""})`,
      { touched, details: { entries: lines.length, cut } },
    )
  },
})
