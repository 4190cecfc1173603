import { createContext, type PromptContext, type PromptContextInput } from "../../../context/prompt-context.js"
import { TemplateEngine } from "../../../prompt/template.js"
import { parameterExamples, parametersSchema, selectTools } from "../../select.js"
import type { EnabledTool, ToolSpec } from "../../spec.js"
import { BUILTIN_TOOLS } from "../index.js"

// Test support: turns tool specs into the EnabledTools a build would show, through the real selection and
// the real template engine in strict mode (an undefined template value fails the test).

/** A context with every feature on, one MCP server with a tool and a resource, and one skill. */
export function richContext(overrides: Partial<PromptContextInput> = {}): PromptContext {
  return createContext({
    cwd: "/srv/project",
    platform: { os: "linux", shell: "bash", home: "/home/dev" },
    date: "2026-01-02",
    model: { id: "test-model", provider: "test" },
    features: { browser: true, webTools: true, subagents: true, taskProgress: true },
    skills: [{ name: "release-notes", description: "Write release notes.", path: ".skills/release-notes/SKILL.md" }],
    mcpServers: [
      {
        name: "docs",
        tools: [{ name: "lookup", inputSchema: { type: "object", properties: { q: { type: "string" } } } }],
        resources: [{ uri: "docs://index", name: "index" }],
      },
    ],
    ...overrides,
  })
}

/** The enabled tools for `context` and a variant listing `ids` (default: every built-in), rendered strictly. */
export function enableTools(
  context: PromptContext,
  variant: string,
  ids: readonly string[] = BUILTIN_TOOLS.map((t) => t.id),
  specs: readonly ToolSpec[] = BUILTIN_TOOLS,
  mcp: readonly ToolSpec[] = [],
): EnabledTool[] {
  const selection = selectTools({
    context,
    variant: { id: variant, tools: ids, mcpTools: mcp.length > 0 },
    builtins: specs,
    mcp,
  })
  const engine = new TemplateEngine("strict")
  const scope = { tools: { by_kind: selection.byKind }, params: selection.params }
  const render = (text: string, where: string, external: boolean) =>
    external ? text : (engine.render(text, scope, where).text ?? "")
  return selection.tools.map((tool) => {
    const external = tool.spec.external === true
    const enabled: EnabledTool = {
      id: tool.spec.id,
      kind: tool.spec.kind,
      name: tool.name,
      description: render(tool.description, `tool ${tool.spec.id}`, external),
      snippet: render(tool.snippet, `tool ${tool.spec.id} snippet`, external),
      guidelines: tool.guidelines.map((g) => render(g, `tool ${tool.spec.id} guideline`, external)),
      parameters: parametersSchema(tool),
      examples: parameterExamples(tool),
    }
    if (tool.spec.mcp) enabled.mcp = tool.spec.mcp
    return enabled
  })
}

/** Every built-in tool with gates ignored (the largest tool set), task progress on, for `variant`. */
export function everyBuiltin(variant = "generic", ids?: readonly string[]): EnabledTool[] {
  const ungated = BUILTIN_TOOLS.map(({ when: _when, ...spec }) => spec)
  return enableTools(richContext(), variant, ids ?? ungated.map((t) => t.id), ungated)
}
