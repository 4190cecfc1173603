import type { PromptContext } from "../context/prompt-context.js"
import type { ComponentEnv, ToolSet } from "./component.js"

/** A guideline that follows from the tool set: shown when `when` holds. */
interface DerivedGuideline {
  when: (tools: ToolSet, context: PromptContext) => boolean
  text: (tools: ToolSet) => string
}

const n = (tools: ToolSet, kind: Parameters<ToolSet["name"]>[0]) => tools.name(kind) ?? kind

/** Guidelines derived from which tools exist together, in a fixed order. */
const DERIVED: DerivedGuideline[] = [
  {
    when: (t) => t.has("execute") && (t.has("search") || t.has("list")),
    text: (t) => {
      // Name only the shell commands a dedicated tool replaces: without a list tool, ls stays the way to list.
      const dedicated = [t.name("search"), t.name("list")].filter(Boolean)
      const replaced = [t.has("search") ? "grep" : "", t.has("list") ? "find or ls" : ""].filter(Boolean).join(", ")
      const [subject, verbs] =
        dedicated.length > 1 ? ["they", "respect .gitignore and cap their"] : ["it", "respects .gitignore and caps its"]
      return `Explore with ${dedicated.join(" and ")} rather than ${replaced} in ${n(t, "execute")}: ${subject} ${verbs} output.`
    },
  },
  {
    when: (t) => t.has("execute") && t.has("read"),
    text: (t) => `Read files with ${n(t, "read")}, not cat or head in ${n(t, "execute")}.`,
  },
  {
    when: (t) => t.has("execute") && (t.has("edit") || t.has("write")),
    text: (t) =>
      `Change files with ${[t.name("edit"), t.name("write")].filter(Boolean).join(" or ")}, not with sed, echo or heredocs in ${n(t, "execute")}.`,
  },
  {
    when: (t) => t.has("definitions") && t.has("read"),
    text: (t) =>
      `To get the shape of unfamiliar code, start with ${n(t, "definitions")}, then read only the files you need.`,
  },
  {
    when: (t) => t.has("fetch") && t.has("browse"),
    text: (t) =>
      `Use ${n(t, "fetch")} to read a page's text; use ${n(t, "browse")} only when you need to see or interact with it.`,
  },
]

/**
 * The first three derived guidelines in one line, for a brief prompt: which tools replace which shell commands.
 * Undefined unless all three apply.
 */
function shellGuideline(t: ToolSet, context: PromptContext): string | undefined {
  if (!DERIVED.slice(0, 3).every((g) => g.when(t, context))) return undefined
  const tools = [t.name("search"), t.name("list"), t.name("read"), t.name("edit"), t.name("write")].filter(Boolean)
  const replaced = [t.has("search") ? "grep" : "", t.has("list") ? "find, ls" : "", "cat, head, sed, echo or heredocs"]
  const finders = [t.name("search"), t.name("list")].filter(Boolean)
  const [subject, verbs] =
    finders.length > 1
      ? [finders.join(" and "), "respect .gitignore and cap their"]
      : [finders[0], "respects .gitignore and caps its"]
  const list = `${tools.slice(0, -1).join(", ")} and ${tools.at(-1)}`
  return `Search, read and change files with ${list}, not with ${replaced.filter(Boolean).join(", ")} in ${n(t, "execute")} (${subject} ${verbs} output).`
}

/** The guidelines for this tool set: derived ones first, then each tool's own, without duplicates. */
export function guidelinesFor(context: PromptContext, env: ComponentEnv): string[] {
  const seen = new Set<string>()
  const out: string[] = []
  const add = (g: string) => {
    const key = g.trim()
    if (key && !seen.has(key)) {
      seen.add(key)
      out.push(key)
    }
  }
  const merged = env.brief ? shellGuideline(env.tools, context) : undefined
  if (merged) add(merged)
  for (const g of merged ? DERIVED.slice(3) : DERIVED) if (g.when(env.tools, context)) add(g.text(env.tools))
  for (const tool of env.tools.list) for (const g of tool.guidelines) add(g)
  return out
}
