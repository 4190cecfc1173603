/** Splits a glob list written as one string at top-level commas (`*.ts, src/**\/*.{js,jsx}`). */
function splitTopLevel(value: string): string[] {
  const out: string[] = []
  let depth = 0
  let current = ""
  for (const ch of value) {
    if (ch === "{" || ch === "[") depth++
    else if ((ch === "}" || ch === "]") && depth > 0) depth--
    if (ch === "," && depth === 0) {
      out.push(current)
      current = ""
    } else current += ch
  }
  out.push(current)
  return out
}

function clean(glob: string): string {
  return glob
    .trim()
    .replace(/^(["'])(.*)\1$/, "$2")
    .trim()
}

/**
 * Reads a frontmatter glob field: a string (comma-separated allowed) or a list of strings.
 * Returns undefined when the field is absent or holds no glob.
 */
export function globList(value: unknown): string[] | undefined {
  const parts: string[] = []
  if (typeof value === "string") parts.push(...splitTopLevel(value))
  else if (Array.isArray(value)) {
    for (const item of value) if (typeof item === "string") parts.push(...splitTopLevel(item))
  } else return undefined
  const globs = parts.map(clean).filter((g) => g.length > 0)
  return globs.length > 0 ? globs : undefined
}

/** True when a glob list matches every path, so the rule is in effect always-on. */
export function matchesEverything(globs: readonly string[]): boolean {
  return globs.some((g) => g === "**" || g === "**/*" || g === "*")
}
