import { createReadStream } from "node:fs"
import { readFile } from "node:fs/promises"
import path from "node:path"
import { createInterface } from "node:readline"
import { z } from "zod"
import { pathArg, positiveIntArg, taskProgressArg } from "./args.js"
import { IMAGE_TYPES, looksBinary, readHead, toolPath } from "./files.js"
import { count, failure, readOf, success } from "./outcome.js"
import { defineExecutor } from "./types.js"

const schema = z.object({
  path: pathArg,
  start_line: positiveIntArg.optional(),
  end_line: positiveIntArg.optional(),
  task_progress: taskProgressArg,
})

interface Slice {
  lines: string[]
  first: number
  total: number
  /** Why the slice ends before the requested end, if it does. */
  cutBy?: "bytes" | "lines"
}

/** Streams the file line by line, keeping the lines of [start, end] within the caps and counting all. */
async function sliceLines(file: string, start: number, end: number, maxBytes: number, maxLines: number) {
  const input = createReadStream(file, { encoding: "utf8" })
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })
  const slice: Slice = { lines: [], first: start, total: 0 }
  let bytes = 0
  try {
    for await (const line of reader) {
      slice.total++
      const n = slice.total
      if (n < start || n > end || slice.cutBy) continue
      const size = Buffer.byteLength(line) + 1
      if (slice.lines.length >= maxLines) slice.cutBy = "lines"
      else if (bytes + size > maxBytes && slice.lines.length > 0) slice.cutBy = "bytes"
      else if (size > maxBytes) {
        // One line longer than the whole budget (minified code): keep its head.
        slice.lines.push(`${line.slice(0, maxBytes)} [… line cut at ${maxBytes} characters]`)
        slice.cutBy = "bytes"
      } else {
        slice.lines.push(line)
        bytes += size
      }
    }
  } finally {
    reader.close()
    input.destroy()
  }
  return slice
}

/** read_file: a text file's lines (optionally a 1-based inclusive range), or an image. */
export const readFileExecutor = defineExecutor({
  id: "read_file",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "read", verb: "read" })
    if (!found.ok) return found.outcome
    const { where, shown, info, kind } = found
    if (!info) return failure(`File not found: ${shown}. Check the path with list_files.`, `read ${shown}: not found`)
    if (info.isDirectory()) {
      return failure(`${shown} is a folder, not a file. Use list_files to see its contents.`, `read ${shown}: a folder`)
    }
    if (kind) return failure(`${shown} is ${kind}, not a regular file.`, `read ${shown}: not a file`)
    if (input.start_line && input.end_line && input.end_line < input.start_line) {
      return failure(
        `Invalid range: end_line (${input.end_line}) is before start_line (${input.start_line}).`,
        `read ${shown}: bad range`,
      )
    }
    const touched = readOf(shown)
    const imageType = IMAGE_TYPES[path.extname(where.absolute).toLowerCase()]
    if (imageType && env.images !== false) {
      if (info.size > env.limits.imageMaxBytes) {
        return failure(
          `${shown} is an image of ${info.size} bytes, larger than the ${env.limits.imageMaxBytes}-byte limit.`,
          `read ${shown}: image too large`,
          { touched },
        )
      }
      const data = (await readFile(where.absolute)).toString("base64")
      return success(
        [
          { type: "text", text: `Image ${shown} (${imageType}, ${info.size} bytes):` },
          { type: "image", mediaType: imageType, data },
        ],
        `read ${shown} (image)`,
        { touched },
      )
    }
    if (looksBinary(await readHead(where.absolute, 8192))) {
      return failure(
        `${shown} looks like a binary file (${info.size} bytes); read_file shows text only.`,
        `read ${shown}: binary`,
        { touched },
      )
    }
    const ranged = input.start_line !== undefined || input.end_line !== undefined
    const start = input.start_line ?? 1
    const end = input.end_line ?? Number.POSITIVE_INFINITY
    const maxLines = ranged ? Number.POSITIVE_INFINITY : env.limits.readMaxLines
    const slice = await sliceLines(where.absolute, start, end, env.limits.readMaxBytes, maxLines)
    if (slice.total === 0) return success(`(${shown} is empty)`, `read ${shown} (empty)`, { touched })
    if (start > slice.total) {
      return failure(
        `start_line ${start} is past the end of ${shown}, which has ${count(slice.total, "line")}.`,
        `read ${shown}: range past the end`,
        { touched },
      )
    }
    const last = start + slice.lines.length - 1
    const width = String(last).length
    const body = env.readLineNumbers
      ? slice.lines.map((line, i) => `${String(start + i).padStart(width)}| ${line}`).join("\n")
      : slice.lines.join("\n")
    const notes: string[] = []
    if (slice.cutBy) {
      const limit = slice.cutBy === "bytes" ? `the ${env.limits.readMaxBytes}-byte limit` : `the ${maxLines}-line limit`
      notes.push(
        `[Showing lines ${start}-${last} of ${slice.total}: the rest was cut at ${limit}. ` +
          `Read more with start_line=${last + 1}.]`,
      )
    } else if (ranged && (start > 1 || last < slice.total)) {
      notes.push(`[Lines ${start}-${last} of ${slice.total}.]`)
    }
    const text = notes.length ? `${body}\n\n${notes.join("\n")}` : body
    const what = ranged || slice.cutBy ? `lines ${start}-${last} of ${slice.total}` : count(slice.total, "line")
    return success(text, `read ${shown} (${what})`, {
      touched,
      details: { totalLines: slice.total, firstLine: start, lastLine: last, truncated: Boolean(slice.cutBy) },
    })
  },
})
