import { mkdir, readFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { writeFileAtomic } from "../atomic-write.js"
import { workspaceKey } from "../context/user-roots.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"

/**
 * What `promptline inspect` remembers between runs, per model: the tool names in the order they were
 * sent and the prefix hash. Kept in the user's cache folder, one file per workspace, written atomically:
 * never in the workspace, where it would show in git status and in the very prompt it measures.
 */

/** The last run for one model. */
export interface LastRun {
  /** Tool names in the order they were sent. */
  tools: string[]
  /** The prefix hash of that build. */
  hash: string
}

/** The file's content: the last run per model id. */
export interface LastRuns {
  version: 1
  models: Record<string, LastRun>
}

/** The file that keeps a workspace's last runs: `<cache>/inspect/<folder name>-<hash of its path>.json`. */
export function lastRunFile(cacheDir: string, workspace: string): string {
  return join(cacheDir, "inspect", `${workspaceKey(workspace)}.json`)
}

/** How the tools of this run compare with the last run's. */
export type ToolOrderChange =
  | { kind: "same" }
  /** The same tools in another order: the cached prefix moves for nothing. */
  | { kind: "reordered"; position: number; before: string; now: string }
  /** Tools were added or removed. */
  | { kind: "changed"; added: string[]; removed: string[] }

/** Compares the tool order of this run with the last one. */
export function compareToolOrder(previous: readonly string[], current: readonly string[]): ToolOrderChange {
  const before = new Set(previous)
  const now = new Set(current)
  const added = current.filter((t) => !before.has(t))
  const removed = previous.filter((t) => !now.has(t))
  if (added.length > 0 || removed.length > 0 || previous.length !== current.length)
    return { kind: "changed", added, removed }
  const position = current.findIndex((t, i) => previous[i] !== t)
  if (position === -1) return { kind: "same" }
  return { kind: "reordered", position, before: previous[position]!, now: current[position]! }
}

function isLastRun(value: unknown): value is LastRun {
  const v = value as LastRun
  return (
    typeof v === "object" &&
    v !== null &&
    Array.isArray(v.tools) &&
    v.tools.every((t) => typeof t === "string") &&
    typeof v.hash === "string"
  )
}

/**
 * Reads the last runs kept in `file`. A missing file is an empty record; an unreadable or malformed one
 * is an empty record plus a diagnostic naming the file (it is rewritten on the next save).
 */
export async function readLastRuns(file: string): Promise<{ runs: LastRuns; diagnostics: Diagnostic[] }> {
  const empty: LastRuns = { version: 1, models: {} }
  let raw: string
  try {
    raw = await readFile(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { runs: empty, diagnostics: [] }
    const message = `cannot read the last inspect run (${(error as Error).message}); tool order is not compared`
    return {
      runs: empty,
      diagnostics: [diagnostic("warning", "last-run-unreadable", message, { path: file })],
    }
  }
  try {
    const parsed = JSON.parse(raw) as LastRuns
    if (parsed?.version !== 1 || typeof parsed.models !== "object" || parsed.models === null)
      throw new Error("unknown shape")
    const models: Record<string, LastRun> = {}
    for (const [id, run] of Object.entries(parsed.models)) if (isLastRun(run)) models[id] = run
    return { runs: { version: 1, models }, diagnostics: [] }
  } catch (error) {
    const message = `the last inspect run is not valid (${(error as Error).message}); it will be rewritten`
    return { runs: empty, diagnostics: [diagnostic("warning", "last-run-invalid", message, { path: file })] }
  }
}

/** Records this run for a model in `file`, keeping the other models' entries; the file is replaced atomically. */
export async function saveLastRun(file: string, runs: LastRuns, modelId: string, run: LastRun): Promise<void> {
  const models: Record<string, LastRun> = {}
  const merged = { ...runs.models, [modelId]: run }
  for (const id of Object.keys(merged).sort()) models[id] = merged[id]!
  await mkdir(dirname(file), { recursive: true })
  await writeFileAtomic(file, `${JSON.stringify({ version: 1, models }, null, 2)}\n`)
}
