import type { PromptContext } from "../context/prompt-context.js"
import type { GatherEntry } from "../context/report.js"
import type { McpServerReport, SectionReport, SkillReport, ToolReport } from "./report-types.js"

/** The config file in a server entry's detail: gather writes it last, as `from FILE`. */
export function sourceOf(detail: string | undefined): string | undefined {
  return detail?.match(/(?:^|; )from (.+)$/)?.[1]
}

/** The skills with their names, statuses and the cost of their line in the skills section. */
export function skillReports(
  context: PromptContext,
  entries: readonly GatherEntry[] | undefined,
  sections: readonly SectionReport[],
  count: (text: string) => number,
): SkillReport[] {
  const listed = sections.some((s) => s.id === "skills")
  const tokensOf = (path: string, name: string | undefined) => {
    const skill = context.skills.find((s) => s.path === path) ?? context.skills.find((s) => s.name === name)
    return listed && skill ? count(`- ${skill.name}: ${skill.description} (${skill.path})`) : undefined
  }
  const withTokens = (r: SkillReport): SkillReport => {
    const tokens = r.status === "loaded" ? tokensOf(r.path, r.name) : undefined
    return tokens === undefined ? r : { ...r, tokens }
  }
  if (!entries)
    return context.skills.map((s) =>
      withTokens({ name: s.name, path: s.path, scope: s.scope, status: "loaded", why: "in the context file" }),
    )
  return entries.map((e) => {
    const name = e.detail ?? context.skills.find((s) => s.path === e.path)?.name
    const r: SkillReport = { path: e.path, scope: e.scope, status: e.status }
    if (name !== undefined) r.name = name
    if (e.reason !== undefined) r.why = e.reason
    return withTokens(r)
  })
}

/** The MCP servers with their config file, status, and the count and tokens of their enabled tools. */
export function mcpServerReports(
  context: PromptContext,
  entries: readonly GatherEntry[] | undefined,
  tools: readonly ToolReport[],
): McpServerReport[] {
  const subtotal = (name: string) => {
    const own = tools.filter((t) => t.mcp?.server === name)
    return { tools: own.length, tokens: own.reduce((n, t) => n + t.tokens, 0) }
  }
  if (!entries)
    return context.mcpServers.map((s) => ({
      name: s.name,
      status: "loaded",
      why: "in the context file",
      ...subtotal(s.name),
    }))
  return entries.map((e) => {
    const r: McpServerReport = { name: e.path, scope: e.scope, status: e.status, ...subtotal(e.path) }
    const source = sourceOf(e.detail)
    if (source !== undefined) r.source = source
    if (e.convention !== undefined) r.format = e.convention
    if (e.reason !== undefined) r.why = e.reason
    return r
  })
}
