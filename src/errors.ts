/** The base of every error promptline throws; `code` is stable and safe to match on. */
export class PromptlineError extends Error {
  readonly code: string
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** One invalid field of an input document, located by its JSON path. */
export interface FieldIssue {
  /** Dotted path such as `features.browser` or `instructions[2].text`; empty for the root. */
  path: string
  message: string
}

/** Input failed validation; `issues` lists every bad field, not only the first. */
export class ValidationError extends PromptlineError {
  readonly issues: FieldIssue[]
  readonly file: string | undefined
  constructor(what: string, issues: FieldIssue[], file?: string) {
    const head = `${file ? `${file}: ` : ""}invalid ${what} (${issues.length} problem${issues.length === 1 ? "" : "s"})`
    const lines = issues.map((i) => `  ${i.path || "(root)"}: ${i.message}`)
    super("invalid-input", [head, ...lines].join("\n"))
    this.issues = issues
    this.file = file
  }
}

/** A file could not be read or parsed; names the file and, when known, the line. */
export class FileError extends PromptlineError {
  readonly file: string
  readonly line: number | undefined
  constructor(code: string, file: string, message: string, options?: { line?: number; cause?: unknown }) {
    super(code, `${file}${options?.line ? `:${options.line}` : ""}: ${message}`, { cause: options?.cause })
    this.file = file
    this.line = options?.line
  }
}
