import type { Liquid, Template } from "liquidjs"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import { PromptlineError } from "../errors.js"
import { lazyModule } from "../lazy-module.js"

/** LiquidJS, required on the first template rendered. */
const liquidjs = lazyModule<typeof import("liquidjs")>("liquidjs")

/**
 * The one template mechanism: LiquidJS with `${{ }}` for values and `${% %}` for tags, so a literal
 * `{{ }}` in prose passes through. Only our own prompt text is a template; text from files, tools or
 * servers is inserted as data and never evaluated.
 */

/** A template failed in strict mode: undefined variable or bad syntax. `line` is 1-based in the template. */
export class TemplateError extends PromptlineError {
  readonly where: string
  readonly line: number | undefined
  readonly variable: string | undefined
  constructor(
    message: string,
    details: { where: string; line?: number; variable?: string },
    options?: { cause?: unknown },
  ) {
    super("template-error", message, options)
    this.where = details.where
    this.line = details.line
    this.variable = details.variable
  }
}

/**
 * How a failing template is handled; both refuse to guess a value. `strict`: undefined variables and
 * syntax errors throw a TemplateError. `report` (the default): they become error diagnostics naming the
 * template, line and variable, and the failing text is left out, so the model never sees template syntax.
 */
export type TemplateStrictness = "strict" | "report"

/** Where a render error happened: the 1-based line in the template and the undefined variable, when known. */
function errorDetails(cause: unknown): { line?: number; variable?: string; reason: string } {
  const error = cause as { message?: string; token?: { getPosition?: () => number[] }; originalError?: Error }
  const reason = error.originalError?.message ?? error.message ?? String(cause)
  const out: { line?: number; variable?: string; reason: string } = {
    reason: reason.replace(/, line:\d+, col:\d+$/, ""),
  }
  const position = error.token?.getPosition?.()
  if (position?.[0] !== undefined) out.line = position[0]
  const undefinedVariable = /^undefined variable: (\S+)/.exec(out.reason)
  if (undefinedVariable) out.variable = undefinedVariable[1]!
  return out
}

interface Compiled {
  template: Template[] | undefined
  /** The scope paths the template reads, e.g. [["tools","by_kind","read"]]. */
  paths: string[][]
  /** Set when the source does not parse. */
  error?: string
}

const MAX_RENDER_CACHE = 4096
const MAX_COMPILED = 4096

/** True when `source` contains template syntax; plain text skips the engine entirely. */
export const isTemplate = (source: string): boolean => source.includes("${{") || source.includes("${%")

/** LiquidJS with our delimiters; one per process, created on first use (the options never change). */
let sharedLiquid: Liquid | undefined
function liquid(): Liquid {
  sharedLiquid ??= new (liquidjs().Liquid)({
    outputDelimiterLeft: "${{",
    outputDelimiterRight: "}}",
    tagDelimiterLeft: "${%",
    tagDelimiterRight: "%}",
    strictVariables: true,
    strictFilters: true,
    jsTruthy: true,
    ownPropertyOnly: true,
    greedy: false,
    // Given, so the engine does not ask Intl for the machine's locale (60-100 ms on first use); a build
    // reads nothing from the machine, and only date filters read the locale.
    locale: "en-US",
  })
  return sharedLiquid
}

// Parsed templates and rendered texts are pure functions of the template text (and, for a rendering,
// the values it reads), so every engine in the process shares them: a new builder parses nothing anew.
const compiledTemplates = new Map<string, Compiled>()
const renderedTexts = new Map<string, string>()

/**
 * Renders templates and remembers results by the values each template reads, so a rebuild only
 * renders what changed. Parsed templates and successful renderings are shared by every engine in the
 * process (they depend on the text and the values alone); the strictness is the engine's own.
 */
export class TemplateEngine {
  readonly strictness: TemplateStrictness
  readonly #liquid: Liquid

  constructor(strictness: TemplateStrictness = "report") {
    this.strictness = strictness
    this.#liquid = liquid()
  }

  /**
   * Renders `source` against `scope`. `where` names the template in diagnostics (e.g. `section rules`).
   * Returns undefined text when the template cannot be rendered at all.
   */
  render(source: string, scope: object, where: string): { text: string | undefined; diagnostics: Diagnostic[] } {
    if (!isTemplate(source)) return { text: source, diagnostics: [] }
    const compiled = this.#compile(source)
    if (!compiled.template) {
      const message = `${where}: template does not parse: ${compiled.error}`
      if (this.strictness === "strict") throw new TemplateError(message, { where })
      return { text: undefined, diagnostics: [diagnostic("error", "template-syntax", message, { path: where })] }
    }
    const key = cacheKey(source, compiled.paths, scope)
    const hit = renderedTexts.get(key)
    if (hit !== undefined) return { text: hit, diagnostics: [] }
    try {
      const text = String(this.#liquid.renderSync(compiled.template, scope))
      remember(key, text)
      return { text, diagnostics: [] }
    } catch (cause) {
      const details = errorDetails(cause)
      const at = details.line !== undefined ? `, line ${details.line}` : ""
      const message = details.variable
        ? `${where}${at}: undefined template variable "${details.variable}"; the text is left out`
        : `${where}${at}: template failed: ${details.reason}; the text is left out`
      if (this.strictness === "strict") throw new TemplateError(message, { where, ...details }, { cause })
      // Report: never guess a value (an empty one reads as a sentence with a hole); leave the text out.
      const code = details.variable ? "template-undefined" : "template-failed"
      const line = details.line !== undefined ? { line: details.line } : {}
      return { text: undefined, diagnostics: [diagnostic("error", code, message, { path: where, ...line })] }
    }
  }

  #compile(source: string): Compiled {
    let compiled = compiledTemplates.get(source)
    if (compiled) return compiled
    try {
      const template = this.#liquid.parse(source)
      const paths = this.#liquid.globalVariableSegmentsSync(template).map((segments) => segments.map((s) => String(s)))
      compiled = { template, paths }
    } catch (cause) {
      compiled = { template: undefined, paths: [], error: (cause as Error).message }
    }
    if (compiledTemplates.size >= MAX_COMPILED) compiledTemplates.clear()
    compiledTemplates.set(source, compiled)
    return compiled
  }
}

/** Keeps a successful rendering; the cache forgets everything when full (bounded memory, no bookkeeping). */
function remember(key: string, text: string): void {
  if (renderedTexts.size >= MAX_RENDER_CACHE) renderedTexts.clear()
  renderedTexts.set(key, text)
}

function lookup(scope: object, path: string[]): unknown {
  let value: unknown = scope
  for (const segment of path) {
    if (value === null || typeof value !== "object") return undefined
    value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined
  }
  return value
}

/** The render cache key: the source plus the value of every path it reads. */
function cacheKey(source: string, paths: string[][], scope: object): string {
  let key = source
  for (const path of paths) {
    const value = lookup(scope, path)
    key += `\u0000${typeof value === "string" ? value : JSON.stringify(value)}`
  }
  return key
}
