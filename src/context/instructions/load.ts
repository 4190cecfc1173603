import { type Diagnostic, diagnostic } from "../../diagnostics.js"
import type { GitignoreRules } from "../gitignore.js"
import { type LinkGuard, linkDiagnostic } from "../link-guard.js"
import type { InstructionFile } from "../prompt-context.js"
import type { EntryStatus, GatherEntry } from "../report.js"
import { UNTRUSTED_FILES } from "../untrusted.js"
import type { Candidate } from "./candidate.js"
import { splitFrontmatter } from "./frontmatter.js"
import { expandImports, type GivenFiles, type ImportScope } from "./imports.js"
import { type ReadFailure, readTextFile } from "./read.js"

/** What loading needs to know about the workspace. */
export interface LoadEnv {
  trust: boolean
  gitignore: GitignoreRules
  imports: ImportScope
  /** Refuses files whose symbolic links lead out of the workspace or the user's config folders. */
  links: LinkGuard
  /** Display path of a file or folder for the context and reports. */
  display: (abs: string, scope: "user" | "project") => string
}

/** One candidate after loading: the file for the context (when it loads), its report entry, diagnostics. */
export interface Loaded {
  file?: InstructionFile
  entry: GatherEntry
  diagnostics: Diagnostic[]
  /** Real paths of the files its imports brought in. */
  imported?: string[]
}

const FAILURE_CODES: Record<ReadFailure, string> = {
  binary: "instruction-binary",
  unreadable: "instruction-unreadable",
  vanished: "instruction-vanished",
  "broken-symlink": "instruction-broken-symlink",
  "symlink-loop": "symlink-loop",
  "not-a-file": "instruction-not-a-file",
}

function statusOf(file: InstructionFile, nested: boolean): EntryStatus {
  if (nested) return "nested"
  switch (file.activation.when) {
    case "always":
      return "loaded"
    case "paths":
      return "conditional"
    case "requested":
      return "requested"
    case "manual":
      return "manual"
  }
}

/**
 * Reads one candidate and decides what becomes of it; every outcome gives a report entry. Imports of files in
 * `given` (their text is in the prompt already) are left as written.
 */
export async function loadCandidate(c: Candidate, env: LoadEnv, given?: GivenFiles): Promise<Loaded> {
  const path = env.display(c.abs, c.scope)
  const entry = (status: EntryStatus, reason?: string): GatherEntry => {
    const e: GatherEntry = { kind: "instruction", path, scope: c.scope, status, convention: c.convention }
    if (reason !== undefined) e.reason = reason
    return e
  }
  if (c.skip) return { entry: entry("skipped", c.skip), diagnostics: [] }
  if (c.scope === "project" && !env.trust) {
    return { entry: entry("skipped", UNTRUSTED_FILES), diagnostics: [] }
  }
  const notes: string[] = []
  if (c.scope === "project") {
    const ignored = await env.gitignore.reason(c.abs, false)
    if (ignored && !c.personal) return { entry: entry("ignored", ignored), diagnostics: [] }
    if (ignored) notes.push("gitignored, read as a personal file")
  }
  const link = await env.links.check(c.abs, c.scope)
  if (!link.ok) return { entry: entry("skipped", link.reason), diagnostics: [linkDiagnostic(link, path)] }
  // The checked real path is read, so a link swapped after the check cannot lead elsewhere.
  const read = await readTextFile(link.real)
  if (!read.ok) {
    const d = diagnostic("warning", FAILURE_CODES[read.failure], `skipped: ${read.message}`, { path })
    return { entry: entry("failed", read.message), diagnostics: [d] }
  }
  const diagnostics: Diagnostic[] = []
  if (read.capped) {
    notes.push("capped at 1 MiB")
    diagnostics.push(
      diagnostic("warning", "instruction-too-large", `${read.size} bytes; only the first 1 MiB is read`, { path }),
    )
  }
  if (read.invalidUtf8) {
    notes.push("invalid UTF-8 replaced")
    diagnostics.push(
      diagnostic("warning", "instruction-invalid-utf8", "not valid UTF-8; bad bytes became U+FFFD", { path }),
    )
  }
  const fm = splitFrontmatter(read.text)
  if (fm.error) {
    notes.push("broken frontmatter kept as text")
    diagnostics.push(
      diagnostic(
        "warning",
        "instruction-frontmatter",
        `frontmatter not understood (${fm.error.message}); loaded as written`,
        {
          path,
          line: fm.error.line,
        },
      ),
    )
  }
  const decided = c.activation(fm.data, path)
  diagnostics.push(...decided.diagnostics)
  let text = fm.body
  let imported: string[] = []
  if (c.imports) {
    const expanded = await expandImports(text, c.abs, env.imports, c.scope, given)
    text = expanded.text
    imported = expanded.imported
    diagnostics.push(...expanded.diagnostics)
    if (expanded.imported.length > 0) notes.push(`${expanded.imported.length} import(s)`)
  }
  text = text.trimEnd()
  if (text.trim() === "") return { entry: entry("skipped", "the file has no text"), diagnostics }
  const file: InstructionFile = {
    path,
    convention: c.convention,
    scope: c.scope,
    text,
    activation: c.nested ? { when: "paths", globs: ["**"] } : decided.activation,
    base: env.display(c.base, "project"),
  }
  if (c.nested) file.nested = true
  const e = entry(statusOf(file, c.nested === true))
  if (file.activation.when === "paths" && !c.nested) e.globs = file.activation.globs
  if (file.activation.when === "requested") e.reason = file.activation.description
  if (c.nested) e.reason = `applies when the agent works under ${file.base}`
  e.detail = [`${Buffer.byteLength(text)} bytes`, ...notes].join(", ")
  return { file, entry: e, diagnostics, ...(imported.length > 0 ? { imported } : {}) }
}
