import { type FieldIssue, issueText } from "./field-issues.js"

/**
 * Every `code` a `PromptlineError` can carry, each documented in docs/errors.md. A throw with a code not listed
 * here does not compile. The first seven are the provider error kinds (`ProviderError.kind`).
 */
export const ERROR_CODES = [
  // Provider errors (ProviderError; code equals kind)
  "context-overflow",
  "rate-limit",
  "quota",
  "auth",
  "invalid-request",
  "server",
  "network",
  // Input documents and files
  "invalid-input",
  "invalid-json",
  "file-unreadable",
  "format-unknown",
  "context-not-json",
  "context-unreadable",
  "invalid-history",
  "config-invalid",
  "config-unreadable",
  "config-provider-untrusted",
  "gather-cwd",
  "html-unwritable",
  "template-error",
  // Change logs and sessions
  "change-log-invalid",
  "change-log-needs-history",
  "change-log-mismatch",
  "session-id-invalid",
  "session-invalid",
  "session-not-found",
  // Endpoints and transport
  "missing-api-key",
  "unknown-provider",
  "unsupported-format",
  "invalid-base-url",
  "invalid-request-target",
  "count-unsupported",
  "count-invalid",
  "compact-invalid",
  "context-management-invalid",
  "socket-busy",
  "response-consumed",
  // Wire formats (the set of formats and its registrations)
  "wire-format-unknown",
  "wire-format-invalid",
  "wire-format-conflict",
  // Optional peer dependencies
  "peer-missing",
  // Tool search
  "tool-search-embed",
  // MCP servers
  "mcp-connect",
  "mcp-unknown-server",
  "mcp-server-timeout",
  // Replay
  "replay-incomplete",
  "replay-script-not-json",
  "replay-script-unreadable",
  "replay-no-workspace",
  // Command line
  "invalid-option",
  "unknown-section",
  "diff-needs-two",
  "no-task",
  "websocket-format",
  "launch-unknown-agent",
  "launch-command-not-found",
  "launch-command-failed",
  // Gateway (promptline serve): configuration, then upstream failures answered in the client's shape
  "gateway-token-missing",
  "gateway-unsafe-host",
  "gateway-key-missing",
  "gateway-upstream-invalid",
  "gateway-port-in-use",
  "gateway-port-denied",
  "gateway-listen-failed",
  "gateway-state-unreachable",
  "gateway-state-degraded",
  "gateway-context-overflow",
  "gateway-rate-limit",
  "gateway-quota",
  "gateway-auth",
  "gateway-invalid-request",
  "gateway-server",
  "gateway-network",
  "gateway-not-found",
  "gateway-overloaded",
] as const

/** The stable code of a `PromptlineError`: one of `ERROR_CODES`. */
export type ErrorCode = (typeof ERROR_CODES)[number]

/** The base of every error promptline throws; `code` is stable and safe to match on. */
export class PromptlineError<Code extends ErrorCode = ErrorCode> extends Error {
  readonly code: Code
  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** One invalid field of an input document, located by its JSON path. */
export type { FieldIssue } from "./field-issues.js"

/** Input failed validation; `issues` lists every bad field, not only the first. */
export class ValidationError extends PromptlineError<"invalid-input"> {
  readonly issues: FieldIssue[]
  readonly file: string | undefined
  constructor(what: string, issues: FieldIssue[], file?: string) {
    const head = `${file ? `${file}: ` : ""}invalid ${what} (${issues.length} problem${issues.length === 1 ? "" : "s"})`
    const lines = issues.map((i) => `  ${issueText(i)}`)
    super("invalid-input", [head, ...lines].join("\n"))
    this.issues = issues
    this.file = file
  }
}

/** A file could not be read or parsed; names the file and, when known, the line (and column: `file:line:column:`). */
export class FileError extends PromptlineError {
  readonly file: string
  readonly line: number | undefined
  readonly column: number | undefined
  constructor(
    code: ErrorCode,
    file: string,
    message: string,
    options?: { line?: number; column?: number; cause?: unknown },
  ) {
    const at = options?.line ? `:${options.line}${options.column ? `:${options.column}` : ""}` : ""
    super(code, `${file}${at}: ${message}`, { cause: options?.cause })
    this.file = file
    this.line = options?.line
    this.column = options?.line ? options.column : undefined
  }
}
