import type { InstructionFile } from "../prompt-context.js"
import type { Candidate } from "./candidate.js"
import type { GivenFiles } from "./imports.js"
import { type LoadEnv, type Loaded, loadCandidate } from "./load.js"

/** A file the prompt carries as long as its place applies: always-on, or nested (attached with its folder). */
const carried = (file: InstructionFile | undefined): file is InstructionFile =>
  file !== undefined && (file.activation.when === "always" || file.nested === true)

/** Whether `a`'s text is in the prompt whenever `b`'s is: `a` is always on, or nested in the same folder as `b`. */
const alongside = (a: InstructionFile, b: InstructionFile) => !a.nested || (b.nested === true && a.base === b.base)

/**
 * Loads again, without the repeated imports, each file whose `@` imports bring in text the prompt already has
 * alongside it: a file that is loaded on its own (CLAUDE.md importing `@AGENTS.md` next to AGENTS.md), or a file
 * an earlier one imports already. `reals`: each candidate's real path. The first to give a text keeps it.
 */
export async function withoutRepeatedImports(
  candidates: readonly Candidate[],
  loaded: readonly Loaded[],
  reals: readonly string[],
  env: LoadEnv,
): Promise<Loaded[]> {
  const out = [...loaded]
  for (let i = 0; i < out.length; i++) {
    const importer = out[i]!
    const file = importer.file
    if (!carried(file) || !importer.imported) continue
    const given = new Map<string, string>()
    out.forEach((other, j) => {
      const o = other.file
      if (j === i || !carried(o) || !alongside(o, file)) return
      if (!given.has(reals[j]!)) given.set(reals[j]!, `${o.path} is in the prompt already`)
      // Only earlier files count for what they import: the first importer keeps the text.
      if (j < i) for (const r of other.imported ?? []) if (!given.has(r)) given.set(r, `${o.path} imports it already`)
    })
    if (!importer.imported.some((r) => given.has(r))) continue
    out[i] = await loadCandidate(candidates[i]!, env, given as GivenFiles)
  }
  return out
}
