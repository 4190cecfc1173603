import { z } from "zod"
import { pathArg, taskProgressArg } from "./args.js"
import { lineCount, toolPath, writeFileAtomic } from "./files.js"
import { count, failure, success, writeOf } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  path: pathArg,
  content: z.string({ error: "expected the file's text as a string" }),
  task_progress: taskProgressArg,
})

/** write_to_file: creates or replaces a file with the given content (folders are created). */
export const writeToFileExecutor = defineExecutor({
  id: "write_to_file",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "write", verb: "write" })
    if (!found.ok) return found.outcome
    const { where, shown, info: existing, kind } = found
    if (kind) {
      // A FIFO, socket or device would be replaced by a regular file (the atomic rename): refused like a folder.
      return failure(
        `${shown} is ${kind}, not a regular file; write_to_file only writes regular files.`,
        `write ${shown}: ${kind}`,
      )
    }
    try {
      // The real path: a symlink is written through, not replaced by a regular file.
      await writeFileAtomic(where.real, input.content)
    } catch (error) {
      return failure(`Could not write ${shown}: ${(error as Error).message}`, `write ${shown} failed`)
    }
    const lines = lineCount(input.content)
    const verb = existing ? "Replaced" : "Created"
    return success(
      `${verb} ${shown} (${count(lines, "line")}, ${Buffer.byteLength(input.content)} bytes).`,
      `${verb.toLowerCase()} ${shown} (${count(lines, "line")})`,
      { touched: writeOf(shown), details: { created: !existing, lines } },
    )
  },
})
