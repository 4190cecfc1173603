import { spawn } from "node:child_process"
import { constants } from "node:fs"
import { access } from "node:fs/promises"
import path from "node:path"
import { createInterface } from "node:readline"
import { displayPath } from "../workspace.js"
import { addLine, clipLine, type FileMatches, type SearchResults } from "./search-results.js"

/** Finds an executable `rg` on the PATH of `env`; undefined when there is none. */
export async function findRipgrep(env: Record<string, string | undefined>): Promise<string | undefined> {
  const dirs = (env.PATH ?? env.Path ?? "").split(path.delimiter).filter(Boolean)
  const names = process.platform === "win32" ? ["rg.exe", "rg.cmd", "rg"] : ["rg"]
  for (const dir of dirs) {
    for (const name of names) {
      const candidate = path.join(dir, name)
      try {
        await access(candidate, constants.X_OK)
        return candidate
      } catch {
        // not here
      }
    }
  }
  return undefined
}

/** What a search is asked to do, shared by ripgrep and the JavaScript fallback. */
export interface SearchQuery {
  workspace: string
  /** Absolute folder or file to search. */
  target: string
  regex: string
  filePattern?: string
  maxResults: number
  signal: AbortSignal
}

interface RgText {
  text?: string
  bytes?: string
}

const textOf = (value: RgText | undefined): string =>
  value?.text ?? (value?.bytes ? Buffer.from(value.bytes, "base64").toString("utf8") : "")

/**
 * Searches with ripgrep in JSON mode, sorted by path so results are deterministic. Honours
 * .gitignore even outside a git repository, skips hidden files and node_modules, one line of context.
 */
export function searchWithRipgrep(rg: string, query: SearchQuery): Promise<SearchResults | { error: string }> {
  const args = [
    "--json",
    "--sort",
    "path",
    "--no-require-git",
    "--context",
    "1",
    "--max-filesize",
    "10M",
    "--glob",
    "!**/node_modules/**",
  ]
  if (query.filePattern) args.push("--glob", query.filePattern)
  args.push("--regexp", query.regex, "--", query.target)
  const child = spawn(rg, args, { cwd: query.workspace, stdio: ["ignore", "pipe", "pipe"], signal: query.signal })
  const results: SearchResults = { files: [], matches: 0, capped: false }
  let current: FileMatches | undefined
  let stderr = ""
  child.stderr.on("data", (chunk: Buffer) => {
    if (stderr.length < 4000) stderr += chunk.toString("utf8")
  })
  const lines = createInterface({ input: child.stdout, crlfDelay: Number.POSITIVE_INFINITY })
  const exited = new Promise<number | null>((resolve) => {
    child.on("close", (code) => resolve(code))
    child.on("error", (error) => {
      stderr ||= error.message
      resolve(null)
    })
  })
  return (async () => {
    for await (const raw of lines) {
      if (results.capped) break
      let event: { type: string; data: Record<string, unknown> }
      try {
        event = JSON.parse(raw)
      } catch {
        continue
      }
      const data = event.data
      if (event.type === "begin") {
        const file = textOf(data.path as RgText)
        current = { path: displayPath(query.workspace, path.resolve(query.workspace, file)), lines: [] }
      } else if ((event.type === "match" || event.type === "context") && current) {
        const match = event.type === "match"
        if (match && results.matches >= query.maxResults) {
          results.capped = true
          break
        }
        if (match) results.matches++
        addLine(current, { line: data.line_number as number, text: clipLine(textOf(data.lines as RgText)), match })
      } else if (event.type === "end" && current) {
        if (current.lines.some((l) => l.match)) results.files.push(current)
        current = undefined
      }
    }
    if (results.capped) {
      if (current?.lines.some((l) => l.match)) results.files.push(current)
      child.kill()
    }
    const code = await exited
    if (!results.capped && code !== 0 && code !== 1 && results.matches === 0) {
      return { error: stderr.trim() || `ripgrep failed (exit code ${code})` }
    }
    return results
  })()
}
