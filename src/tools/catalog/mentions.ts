import type { ToolKind } from "../spec.js"

// Built-in descriptions name other tools only through template values, so renames and missing tools never
// leave a stale mention. These helpers write that template text with the kind checked at compile time.

const OUT = "$" + "{{"
const TAG = "$" + "{%"

/** Template text for the name of the enabled tool of `kind` (empty when there is none). */
export function toolName(kind: ToolKind): string {
  return `${OUT} tools.by_kind.${kind} }}`
}

/** Template text that shows `text` only when a tool of `kind` is enabled. */
export function ifTool(kind: ToolKind, text: string): string {
  return `${TAG} if tools.by_kind.${kind} %}${text}${TAG} endif %}`
}
