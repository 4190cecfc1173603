import type { Diagnostic } from "../../diagnostics.js"
import { diagnostic } from "../../diagnostics.js"
import type { Activation } from "../prompt-context.js"
import { globList, matchesEverything } from "./globs.js"

/** When a file applies, decided from its frontmatter; may warn about fields it cannot use. */
export type ActivationRule = (
  data: Record<string, unknown>,
  path: string,
) => { activation: Activation; diagnostics: Diagnostic[] }

/** A file one convention proposes, before it is read. */
export interface Candidate {
  abs: string
  /** Convention family: agents-md, claude, cline, cursor, windsurf, copilot, gemini, promptline. */
  convention: string
  scope: "user" | "project"
  /** Folder the file applies to (absolute); globs resolve against it. */
  base: string
  activation: ActivationRule
  /** Expands `@path` imports (CLAUDE.md and GEMINI.md). */
  imports?: boolean
  /** A personal file meant to be gitignored (CLAUDE.local.md): read even when .gitignore matches it. */
  personal?: boolean
  /** Found in a folder below cwd: attached when the agent works there. */
  nested?: boolean
  /** Set when the candidate is known not to load, with the reason (e.g. replaced by an override). */
  skip?: string
}

/** Files without frontmatter semantics: always on. */
export const alwaysOn: ActivationRule = () => ({ activation: { when: "always" }, diagnostics: [] })

/** `paths:` (or `globs:`) frontmatter makes the file conditional; otherwise always on (Claude rules, Cline). */
export const pathsField: ActivationRule = (data) => {
  const globs = globList(data.paths) ?? globList(data.globs)
  if (!globs || matchesEverything(globs)) return { activation: { when: "always" }, diagnostics: [] }
  return { activation: { when: "paths", globs }, diagnostics: [] }
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined
}

/** Cursor `.mdc` rules: alwaysApply, then globs, then description (agent-requested), else manual. */
export const cursorRule: ActivationRule = (data) => {
  if (data.alwaysApply === true || data.alwaysApply === "true")
    return { activation: { when: "always" }, diagnostics: [] }
  const globs = globList(data.globs)
  if (globs) return { activation: { when: "paths", globs }, diagnostics: [] }
  const description = text(data.description)
  if (description) return { activation: { when: "requested", description }, diagnostics: [] }
  return { activation: { when: "manual" }, diagnostics: [] }
}

/** Windsurf rules: `trigger` always_on (the default), glob, model_decision or manual. */
export const windsurfRule: ActivationRule = (data, path) => {
  const trigger = text(data.trigger) ?? "always_on"
  const warn = (message: string) => [diagnostic("warning", "instruction-activation", message, { path })]
  switch (trigger) {
    case "always_on":
      return { activation: { when: "always" }, diagnostics: [] }
    case "glob": {
      const globs = globList(data.globs)
      if (globs) return { activation: { when: "paths", globs }, diagnostics: [] }
      return { activation: { when: "manual" }, diagnostics: warn("`trigger: glob` without `globs`: treated as manual") }
    }
    case "model_decision": {
      const description = text(data.description)
      if (description) return { activation: { when: "requested", description }, diagnostics: [] }
      return {
        activation: { when: "manual" },
        diagnostics: warn("`trigger: model_decision` without `description`: treated as manual"),
      }
    }
    case "manual":
      return { activation: { when: "manual" }, diagnostics: [] }
    default:
      return {
        activation: { when: "always" },
        diagnostics: warn(`unknown trigger \`${trigger}\`: treated as always_on`),
      }
  }
}

/** Copilot `.instructions.md`: `applyTo` globs; without them, requested by description or manual. */
export const copilotRule: ActivationRule = (data) => {
  const globs = globList(data.applyTo)
  if (globs) {
    if (matchesEverything(globs)) return { activation: { when: "always" }, diagnostics: [] }
    return { activation: { when: "paths", globs }, diagnostics: [] }
  }
  const description = text(data.description)
  if (description) return { activation: { when: "requested", description }, diagnostics: [] }
  return { activation: { when: "manual" }, diagnostics: [] }
}

/** Where a convention looks: the cached listings, the scope, and the folder rules' globs resolve against. */
export interface Probe {
  dirs: import("../dir-cache.js").DirCache
  scope: "user" | "project"
  /** Folder that rule globs resolve against; defaults to the folder being probed. */
  base?: string
  /** Probing a folder below cwd: files found are attached on demand. */
  nested?: boolean
}

/** What one convention found in one folder, and folders skipped because symbolic links loop. */
export interface Found {
  candidates: Candidate[]
  loops: string[]
}

/** Builds a candidate for a file found by a probe. */
export function candidate(
  abs: string,
  convention: string,
  probe: Probe,
  base: string,
  activation: ActivationRule,
  extra: Partial<Pick<Candidate, "imports" | "personal" | "skip">> = {},
): Candidate {
  const c: Candidate = { abs, convention, scope: probe.scope, base, activation, ...extra }
  if (probe.nested) c.nested = true
  return c
}

/** Turns folders skipped for looping symbolic links into diagnostics. */
export function loopDiagnostics(loops: readonly string[], display: (abs: string) => string): Diagnostic[] {
  return loops.map((abs) =>
    diagnostic("warning", "symlink-loop", "symbolic links loop back to a folder already read; skipped", {
      path: display(abs),
    }),
  )
}
