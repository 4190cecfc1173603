/**
 * Zod's validation issues as promptline shows them, in one place: a field path in one form (`instructions[2].text`,
 * empty for the root), issues as `FieldIssue`s for `ValidationError`, and one line `path: message; …` for
 * diagnostics and refusals. Structural types only: importing this module loads no zod.
 */

/** One invalid field: where (a field path, `fieldPath`) and what is wrong. */
export interface FieldIssue {
  /** Dotted path such as `features.browser` or `instructions[2].text`; empty for the root. */
  path: string
  message: string
}

/** What this module reads of a zod issue. */
export interface IssueLike {
  path: readonly PropertyKey[]
  message: string
}

/** A zod issue path as a field path: names joined by dots, indexes in brackets (`messages[3].content`); "" for the root. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i === 0 ? "" : "."}${String(p)}`)).join("")
}

/** Every issue of a failed parse as a `FieldIssue`. */
export function fieldIssues(error: { issues: readonly IssueLike[] }): FieldIssue[] {
  return error.issues.map((issue) => ({ path: fieldPath(issue.path), message: issue.message }))
}

/**
 * Issues in one line: `path: message`, joined by `; `. An issue at the root is named `root` (default `(root)`);
 * with `root: ""` it is the message alone.
 */
export function issuesLine(issues: readonly FieldIssue[], root = "(root)"): string {
  return issues.map((i) => issueText(i, root)).join("; ")
}

/** One issue as `path: message` (the root named `root`; with `root: ""` the message alone). */
export function issueText(issue: FieldIssue, root = "(root)"): string {
  const where = issue.path || root
  return where ? `${where}: ${issue.message}` : issue.message
}
