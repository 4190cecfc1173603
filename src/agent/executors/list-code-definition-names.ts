import { readFile, stat } from "node:fs/promises"
import { z } from "zod"
import { displayPath } from "../workspace.js"
import { pathArg, taskProgressArg } from "./args.js"
import { type Definition, DefinitionParser, languageOf } from "./definitions.js"
import { looksBinary, toolPath } from "./files.js"
import { count, failure, readOf, success } from "./outcome.js"
import { defineExecutor } from "./types.js"
import { walk } from "./walk.js"

const schema = z.object({
  path: pathArg,
  task_progress: taskProgressArg,
})

const MAX_SOURCE_BYTES = 1024 * 1024

function format(file: string, definitions: Definition[]): string {
  const width = String(definitions[definitions.length - 1]?.line ?? 1).length
  const rows = definitions.map((d) => `${String(d.line).padStart(width)}| ${d.depth ? "  " : ""}${d.text}`)
  return [file, ...rows].join("\n")
}

/**
 * list_code_definition_names: the top-level definitions (and class, trait and impl members) of the
 * source files directly in a folder, or of one file. TypeScript, JavaScript, Python, Go, Rust, Java.
 */
export const listCodeDefinitionNamesExecutor = defineExecutor({
  id: "list_code_definition_names",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "read", verb: "outline" })
    if (!found.ok) return found.outcome
    const { where, shown, info, kind } = found
    if (!info) return failure(`No such file or folder: ${shown}.`, `outline ${shown}: not found`)
    const files: string[] = []
    if (info.isFile()) files.push(where.absolute)
    else if (!info.isDirectory()) {
      return failure(`${shown} is ${kind}, not a regular file or folder.`, `outline ${shown}: not a file`)
    } else {
      for await (const entry of walk({
        root: env.workspace,
        start: where.absolute,
        recursive: false,
        hidden: false,
        order: "depth",
        signal: env.signal,
      })) {
        if (entry.isFile && languageOf(entry.absolute)) files.push(entry.absolute)
      }
    }
    const supported = files.filter((f) => languageOf(f))
    if (supported.length === 0) {
      return success(
        `No supported source files in ${shown} (TypeScript, JavaScript, Python, Go, Rust, Java; sub-folders are not searched).`,
        `outlined ${shown} (no source files)`,
        { touched: readOf(shown) },
      )
    }
    const chosen = supported.slice(0, env.limits.definitionsMaxFiles)
    const parser = env.definitions ?? new DefinitionParser()
    const parts: string[] = []
    let definitions = 0
    try {
      for (const file of chosen) {
        if (env.signal.aborted) break
        const size = (await stat(file)).size
        if (size > MAX_SOURCE_BYTES) continue
        const bytes = await readFile(file)
        if (looksBinary(bytes.subarray(0, 8192))) continue
        const found = await parser.outline(file, bytes.toString("utf8"))
        if (!found || found.length === 0) continue
        definitions += found.length
        parts.push(format(displayPath(env.workspace, file), found))
      }
    } finally {
      if (!env.definitions) await parser.close()
    }
    const cut =
      supported.length > chosen.length
        ? `\n\n[Outlined the first ${chosen.length} of ${supported.length} source files. Point to a file or a sub-folder for the rest.]`
        : ""
    const body = parts.length ? parts.join("\n\n") : `No definitions found in ${shown}.`
    return success(
      `${body}${cut}`,
      `outlined ${shown} (${count(definitions, "definition")} in ${count(parts.length, "file")})`,
      { touched: readOf(shown), details: { files: parts.length, definitions } },
    )
  },
})
