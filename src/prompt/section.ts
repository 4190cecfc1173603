import type { PromptContext } from "../context/prompt-context.js"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { Component, ComponentEnv, Fragment, SectionContent } from "./component.js"
import { type Piece, postProcessPieces } from "./post-process.js"
import { volatileScope } from "./scope.js"
import { isTemplate, type TemplateEngine } from "./template.js"
import type { Variant } from "./variant.js"

/** One rendered section of the prompt. */
export interface BuiltSection {
  id: string
  text: string
  /** Where the section went: the system prompt or the context message. */
  placement: "system" | "context-message"
  /** True for per-project or per-day facts (instructions, date, cwd), wherever they were placed. */
  volatile: boolean
  /** Hash of the text: a section whose hash did not change did not move the cached prefix. */
  hash: string
}

/** The template scopes of one build; the volatile one is made only when a volatile template needs it. */
export interface Scopes {
  stable: Record<string, unknown>
  context: PromptContext
  volatile: Record<string, unknown> | undefined
}

/** The scope a component renders with: the stable one, or (volatile sections) the one with cwd, date, OS. */
export function scopeFor(component: Component, scopes: Scopes): Record<string, unknown> {
  if (!component.volatile) return scopes.stable
  scopes.volatile ??= volatileScope(scopes.stable, scopes.context)
  return scopes.volatile
}

/** A rendered section (or nothing), with the diagnostics its rendering produced. */
export interface SectionStage {
  section: BuiltSection | undefined
  diagnostics: Diagnostic[]
}

/** Post-processes a section's pieces; nothing when the result is empty. */
export function makeSection(
  id: string,
  isVolatile: boolean,
  placement: PromptContext["placement"],
  pieces: Piece[],
  hashOf: (text: string) => string,
): BuiltSection | undefined {
  const text = postProcessPieces(pieces)
  if (text.trim() === "") return undefined
  return {
    id,
    text,
    placement: isVolatile && placement === "context-message" ? "context-message" : "system",
    volatile: isVolatile,
    hash: hashOf(text),
  }
}

const describe = (value: unknown): string =>
  value === null ? "null" : Array.isArray(value) ? "a list" : typeof value === "object" ? "an object" : typeof value

/** What is wrong with a component's return value (components may be plain JavaScript), or undefined. */
function contentProblem(content: unknown): string | undefined {
  if (content === undefined || typeof content === "string") return undefined
  if (!Array.isArray(content)) {
    const single = content as Partial<Fragment> | null
    return single !== null && typeof single === "object" && "kind" in single
      ? "one fragment instead of a list of fragments"
      : describe(content)
  }
  for (const [i, f] of content.entries()) {
    const fragment = f as Partial<Fragment> | null
    if (
      fragment === null ||
      typeof fragment !== "object" ||
      (fragment.kind !== "template" && fragment.kind !== "data") ||
      typeof fragment.text !== "string"
    )
      return `a list whose item ${i} is not a fragment (${describe(f)})`
  }
  return undefined
}

/**
 * Runs a component (with the variant's patch) and renders its fragments: template text through the
 * engine, data as it is. A component that throws, or a template that cannot render, is a diagnostic.
 */
export function renderComponent(
  component: Component,
  context: PromptContext,
  variant: Variant,
  env: ComponentEnv,
  scopes: Scopes,
  engine: TemplateEngine,
  hashOf: (text: string) => string,
): SectionStage {
  const { id } = component
  const placement = context.placement
  const diagnostics: Diagnostic[] = []
  let content: SectionContent
  try {
    const patch = variant.patches?.[id]
    content = (patch?.render ?? component.render)(context, env)
    const problem = contentProblem(content)
    if (problem) {
      const message = `component "${id}" returned ${problem}; expected a string, a list of fragments or nothing`
      diagnostics.push(diagnostic("error", "component-bad-return", message))
      return { section: undefined, diagnostics }
    }
    if (content !== undefined && patch && (patch.prepend || patch.append)) {
      const body: Fragment[] = typeof content === "string" ? [{ kind: "template", text: content }] : content
      content = [
        ...(patch.prepend ? [{ kind: "template" as const, text: patch.prepend }] : []),
        ...body,
        ...(patch.append ? [{ kind: "template" as const, text: patch.append }] : []),
      ]
    }
  } catch (cause) {
    diagnostics.push(diagnostic("error", "component-failed", `component "${id}" failed: ${(cause as Error).message}`))
    return { section: undefined, diagnostics }
  }
  if (content === undefined) return { section: undefined, diagnostics }
  const fragments: Fragment[] = typeof content === "string" ? [{ kind: "template", text: content }] : content
  const pieces: Piece[] = []
  for (const f of fragments) {
    if (f.kind === "data") {
      pieces.push({ text: f.text, verbatim: true })
      continue
    }
    const r = isTemplate(f.text)
      ? engine.render(f.text, scopeFor(component, scopes), `section ${id}`)
      : { text: f.text, diagnostics: [] }
    diagnostics.push(...r.diagnostics)
    if (r.text === undefined) return { section: undefined, diagnostics }
    pieces.push({ text: r.text, verbatim: false })
  }
  return { section: makeSection(id, component.volatile, placement, pieces, hashOf), diagnostics }
}
