import { posix } from "node:path"
import type Picomatch from "picomatch"
import { lazyModule } from "../lazy-module.js"
import { relativeToCwd } from "./paths.js"
import type { InstructionFile, PromptContext } from "./prompt-context.js"

/** picomatch (CommonJS), required on the first glob test. */
const picomatch = lazyModule<typeof Picomatch>("picomatch")

/** True when a conditional instruction file applies to `path` (POSIX, relative to cwd). */
export function appliesTo(file: InstructionFile, path: string): boolean {
  if (file.activation.when !== "paths") return false
  const base = file.base ?? "."
  const rel = posix.relative(base, path)
  if (rel === "") return file.nested === true
  if (rel === ".." || rel.startsWith("../") || posix.isAbsolute(rel)) return false
  // Globs without a slash (`*.tsx`) match a file's name at any depth, as in Cursor and .gitignore.
  return file.activation.globs.some((glob) =>
    picomatch().isMatch(rel, glob, { dot: true, basename: !glob.includes("/") }),
  )
}

/**
 * The conditional instruction files (path-activated rules and nested files) that `touchedPaths` switch on,
 * in context order. Paths may be absolute or relative to the context's cwd.
 */
export function activate(context: PromptContext, touchedPaths: readonly string[]): InstructionFile[] {
  const paths = touchedPaths.map((p) => relativeToCwd(p, context.cwd))
  return context.instructions.filter((file) => paths.some((p) => appliesTo(file, p)))
}

/**
 * Hands out, once each, the instruction files that apply to the files an agent reads: the nested files of
 * the read file's folders and the conditional rules its path switches on. Always-on files count as given.
 */
export class InstructionTracker {
  private readonly given = new Set<string>()

  constructor(private readonly context: PromptContext) {
    for (const file of context.instructions) if (file.activation.when === "always") this.given.add(file.path)
  }

  /** The files that apply to `filePath` and were not handed out yet; marks them as handed out. */
  instructionsFor(filePath: string): InstructionFile[] {
    const path = relativeToCwd(filePath, this.context.cwd)
    const out = this.context.instructions.filter((file) => !this.given.has(file.path) && appliesTo(file, path))
    for (const file of out) this.given.add(file.path)
    return out
  }

  /** Marks files as already given (e.g. after a session resumes). */
  markGiven(paths: Iterable<string>): void {
    for (const p of paths) this.given.add(p)
  }

  /** The paths handed out so far, including the always-on files. */
  get givenPaths(): string[] {
    return [...this.given].sort()
  }
}

/** Starts an InstructionTracker for a gathered context. */
export function trackInstructions(context: PromptContext): InstructionTracker {
  return new InstructionTracker(context)
}
