import type { Diagnostic } from "../diagnostics.js"
import { parameterExamples, parametersSchema, type SelectedTool } from "../tools/select.js"
import type { EnabledTool } from "../tools/spec.js"
import type { TemplateEngine } from "./template.js"

/** Renders a selected tool's text for the model. MCP descriptions are data and are not rendered. */
export function enableTool(
  tool: SelectedTool,
  scope: object,
  engine: TemplateEngine,
  diagnostics: Diagnostic[],
): EnabledTool {
  const render = (source: string, what: string): string => {
    if (tool.spec.external) return source
    const r = engine.render(source, scope, `tool ${tool.spec.id} ${what}`)
    diagnostics.push(...r.diagnostics)
    return r.text ?? ""
  }
  const enabled: EnabledTool = {
    id: tool.spec.id,
    kind: tool.spec.kind,
    name: tool.name,
    description: render(tool.description, "description"),
    snippet: render(tool.snippet, "snippet"),
    guidelines: tool.guidelines.map((g) => render(g, "guideline")).filter((g) => g.trim() !== ""),
    parameters: parametersSchema(tool),
    examples: parameterExamples(tool),
  }
  if (tool.spec.mcp) enabled.mcp = tool.spec.mcp
  return enabled
}
