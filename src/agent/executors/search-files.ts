import { z } from "zod"
import { pathArg, taskProgressArg } from "./args.js"
import { toolPath } from "./files.js"
import { count, failure, oneLine, readOf, success } from "./outcome.js"
import { findRipgrep, type SearchQuery, searchWithRipgrep } from "./ripgrep.js"
import { compileRegex, searchWithJavaScript } from "./search-js.js"
import { formatResults } from "./search-results.js"
import { defineExecutor, type ResolvedEnv } from "./types.js"

const schema = z.object({
  path: pathArg,
  regex: z.string({ error: "expected a regular expression as a string" }).min(1, "must not be empty"),
  file_pattern: z.string().trim().optional(),
  task_progress: taskProgressArg,
})

/** The ripgrep binary to use, or undefined for the JavaScript search. */
async function ripgrepFor(env: ResolvedEnv): Promise<string | undefined> {
  if (env.ripgrep === false) return undefined
  if (typeof env.ripgrep === "string") return env.ripgrep
  return findRipgrep(env.processEnv ?? process.env)
}

/** search_files: regex search over a folder's files (ripgrep when available), grouped by file with context. */
export const searchFilesExecutor = defineExecutor({
  id: "search_files",
  schema,
  async run(input, env) {
    const found = await toolPath(env, input.path, { access: "read", verb: "search", private: "refuse" })
    if (!found.ok) return found.outcome
    const { where, shown, info, kind } = found
    if (!info) return failure(`No such file or folder: ${shown}.`, `search ${shown}: not found`)
    // A named pipe, socket or device is not searched: reading one could wait forever.
    if (kind && !info.isDirectory())
      return failure(`${shown} is ${kind}, not a regular file or folder.`, `search ${shown}: not a file`)
    const query: SearchQuery = {
      workspace: env.workspace,
      target: where.absolute,
      regex: input.regex,
      filePattern: input.file_pattern || undefined,
      maxResults: env.limits.searchMaxResults,
      signal: env.signal,
    }
    const rg = await ripgrepFor(env)
    let engine = rg ? "ripgrep" : "javascript"
    let results = rg ? await searchWithRipgrep(rg, query) : await searchWithJavaScript(query)
    if ("error" in results && rg && typeof compileRegex(input.regex) !== "string") {
      // A JavaScript-only construct (look-around, back-references) that ripgrep's engine rejects.
      engine = "javascript"
      results = await searchWithJavaScript(query)
    }
    const what = `/${oneLine(input.regex, 40)}/ in ${shown}`
    if ("error" in results) {
      return failure(`The search failed: ${results.error}`, `search ${what}: failed`, { details: { engine } })
    }
    // Only the searched path counts as touched: a match is not a read of the whole file.
    const touched = readOf(shown)
    return success(
      formatResults(results, env.limits.searchMaxResults),
      `searched ${what} (${count(results.matches, "match", "matches")}${results.capped ? ", capped" : ""})`,
      { touched, details: { engine, matches: results.matches, files: results.files.length, capped: results.capped } },
    )
  },
})
