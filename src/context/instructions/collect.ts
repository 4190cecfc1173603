import { join } from "node:path"
import type { Diagnostic } from "../../diagnostics.js"
import { diagnostic } from "../../diagnostics.js"
import type { DirCache } from "../dir-cache.js"
import { foldersBetween, isInside } from "../paths.js"
import type { InstructionFile } from "../prompt-context.js"
import type { GatherEntry } from "../report.js"
import { promptlineUserDir, type UserRoot } from "../user-roots.js"
import { walkFolders } from "../walk.js"
import { findAgentsMd } from "./agents-md.js"
import { applyBudget } from "./budget.js"
import { alwaysOn, type Candidate, candidate, type Found, loopDiagnostics, type Probe } from "./candidate.js"
import { findClaudeMemory, findClaudeRules } from "./claude.js"
import { findClineFolder, findClinerules } from "./cline.js"
import { findCopilotInstructions, findCopilotRules } from "./copilot.js"
import { findCursorRules, findCursorrules } from "./cursor.js"
import { findGeminiMd } from "./gemini.js"
import { type LoadEnv, loadCandidate } from "./load.js"
import { withoutRepeatedImports } from "./repeated-imports.js"
import { findWindsurfRules, findWindsurfrules } from "./windsurf.js"

/** What collecting instruction files needs. */
export interface CollectInput extends LoadEnv {
  cwd: string
  /** Git root, or cwd outside a repository. */
  root: string
  home: string
  env: Record<string, string | undefined>
  userRoots: ReadonlySet<UserRoot>
  budget: number
  dirs: DirCache
  /** Cap on folders walked below cwd for nested files. */
  walkLimit?: number
}

/** The instruction files for the context, a report entry for each file considered, and diagnostics. */
export interface Collected {
  files: InstructionFile[]
  entries: GatherEntry[]
  diagnostics: Diagnostic[]
}

/** Memory files of one folder (always-on when on the chain root → cwd), general first. */
async function memoryFiles(dir: string, probe: Probe, all: boolean): Promise<Candidate[]> {
  const out = [
    ...(await findAgentsMd(dir, probe)),
    ...(await findClaudeMemory(dir, probe)),
    ...(await findGeminiMd(dir, probe)),
  ]
  if (!all) return out
  return [
    ...out,
    ...(await findCopilotInstructions(dir, probe)),
    ...(await findCursorrules(dir, probe)),
    ...(await findWindsurfrules(dir, probe)),
  ]
}

/**
 * Names that give a nested memory file (memoryFiles with `all` false): a folder below cwd holding none of them
 * is not probed. Keep in step with findAgentsMd, findClaudeMemory and findGeminiMd.
 */
const NESTED_MEMORY_NAMES: ReadonlySet<string> = new Set([
  "AGENTS.md",
  "AGENTS.override.md",
  "CLAUDE.md",
  ".claude",
  "CLAUDE.local.md",
  "GEMINI.md",
])

/** True when `dir`'s listing names a possible nested memory file (the listing is already read by the walk). */
function mayHoldMemory(dir: string, dirs: DirCache): boolean {
  return (dirs.listNow(dir) ?? []).some((e) => NESTED_MEMORY_NAMES.has(e.name))
}

async function ruleFolders(dir: string, probe: Probe): Promise<Found[]> {
  return [
    await findClinerules(dir, probe),
    await findClaudeRules(join(dir, ".claude", "rules"), probe, dir),
    await findCursorRules(dir, probe),
    await findWindsurfRules(dir, probe),
    await findCopilotRules(dir, probe),
  ]
}

async function userCandidates(input: CollectInput): Promise<Found[]> {
  const probe: Probe = { dirs: input.dirs, scope: "user" }
  const base = input.root
  // User files apply to the whole project: their globs resolve against its root.
  const rebase = (c: Candidate): Candidate => ({ ...c, base })
  const found: Found[] = []
  const on = (root: UserRoot) => input.userRoots.has(root)
  const memory = async (dir: string, name: string, convention: string, imports: boolean) => {
    if ((await input.dirs.kind(dir, name)) === undefined) return
    const c = candidate(join(dir, name), convention, probe, base, alwaysOn, imports ? { imports } : {})
    found.push({ candidates: [c], loops: [] })
  }
  if (on("promptline")) {
    const dir = promptlineUserDir(input.home, input.env)
    found.push({ candidates: (await findAgentsMd(dir, probe)).map(rebase), loops: [] })
  }
  if (on("claude")) {
    await memory(join(input.home, ".claude"), "CLAUDE.md", "claude", true)
    found.push(await findClaudeRules(join(input.home, ".claude", "rules"), probe, base))
  }
  if (on("codex")) {
    found.push({
      candidates: (await findAgentsMd(join(input.home, ".codex"), probe)).map(rebase),
      loops: [],
    })
  }
  if (on("gemini")) await memory(join(input.home, ".gemini"), "GEMINI.md", "gemini", true)
  if (on("cline")) found.push(await findClineFolder(join(input.home, "Documents", "Cline", "Rules"), probe, base))
  return found
}

/**
 * Marks a candidate that is the same file as an earlier one (AGENTS.md linked to CLAUDE.md, or a home folder
 * that is also the project) as skipped, so its text is not given twice.
 */
async function withoutRepeats(
  candidates: Candidate[],
  input: CollectInput,
): Promise<{ candidates: Candidate[]; reals: string[] }> {
  const reals = await Promise.all(candidates.map(async (c) => (await input.links.real(c.abs)) ?? c.abs))
  const first = new Map<string, Candidate>()
  const kept = candidates.map((c, i) => {
    const earlier = first.get(reals[i]!)
    if (!earlier) {
      if (!c.skip) first.set(reals[i]!, c)
      return c
    }
    return { ...c, skip: `the same file as ${input.display(earlier.abs, earlier.scope)}, already read` }
  })
  return { candidates: kept, reals }
}

/** Finds, reads and budgets every instruction file: user roots, then the git root down to cwd, then below cwd. */
export async function collectInstructions(input: CollectInput): Promise<Collected> {
  const found: Found[] = await userCandidates(input)
  const project: Probe = { dirs: input.dirs, scope: "project" }
  for (const dir of foldersBetween(input.root, input.cwd)) {
    found.push({ candidates: await memoryFiles(dir, project, true), loops: [] })
    found.push(...(await ruleFolders(dir, project)))
  }
  const diagnostics: Diagnostic[] = []
  const walk = await walkFolders(input.cwd, input.dirs, input.gitignore, input.walkLimit)
  if (walk.limited) {
    const message = `stopped looking for nested instruction files after ${walk.folders.length} folders`
    diagnostics.push(diagnostic("warning", "walk-limit", message, { path: "." }))
  }
  const nested: Probe = { dirs: input.dirs, scope: "project", nested: true }
  const nestedFound = await Promise.all(
    walk.folders.filter((dir) => mayHoldMemory(dir, input.dirs)).map((dir) => memoryFiles(dir, nested, false)),
  )
  for (const candidates of nestedFound) if (candidates.length > 0) found.push({ candidates, loops: [] })

  const { candidates, reals } = await withoutRepeats(
    found.flatMap((f) => f.candidates),
    input,
  )
  const shown = (abs: string) => input.display(abs, isInside(input.root, abs) ? "project" : "user")
  for (const f of found) diagnostics.push(...loopDiagnostics(f.loops, shown))
  const loaded = await withoutRepeatedImports(
    candidates,
    await Promise.all(candidates.map((c) => loadCandidate(c, input))),
    reals,
    input,
  )
  const files: InstructionFile[] = []
  const entries: GatherEntry[] = []
  const fileEntry = new Map<InstructionFile, GatherEntry>()
  for (const l of loaded) {
    entries.push(l.entry)
    // A nested file reaches the model only when the agent works under its folder; until then its problems are
    // notes, so a repository full of fixtures (or vendored projects) does not warn on every gather.
    const nested = l.entry.status === "nested"
    diagnostics.push(...(nested ? l.diagnostics.map(asNestedNote) : l.diagnostics))
    if (l.file) {
      files.push(l.file)
      fileEntry.set(l.file, l.entry)
    }
  }
  const budgeted = applyBudget(files, input.budget)
  diagnostics.push(...budgeted.diagnostics)
  budgeted.files.forEach((file, i) => {
    if (!file.truncated) return
    const e = fileEntry.get(files[i]!)!
    if (e.status === "loaded") e.status = "truncated"
    e.reason = "cut to fit the instruction budget (least specific text goes first)"
  })
  return { files: budgeted.files, entries, diagnostics }
}

/** A nested file's warning as an info note that says when the file would matter. */
function asNestedNote(d: Diagnostic): Diagnostic {
  if (d.level !== "warning") return d
  return {
    ...d,
    level: "info",
    message: `${d.message} (a nested file: it is attached only when the agent works in its folder)`,
  }
}
