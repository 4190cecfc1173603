import { describe, expect, it } from "vitest"
import type { PromptContext } from "../context/prompt-context.js"
import { BUILTIN_TOOL_IDS } from "../tools/catalog/index.js"
import { type BuiltPrompt, PromptBuilder } from "./builder.js"
import { basicContext } from "./test-helpers/contexts.js"
import { BUILTIN_VARIANTS } from "./variants/index.js"

/**
 * Every sentence of every variant must be true for the context it is built from: no sentence names a
 * tool, a section or a behaviour (editing, running commands, asking, switching modes) the build does
 * not offer. Each variant is built across mode × audience × interactivity × autonomy × tool subsets.
 */

const EDIT = ["write_to_file", "replace_in_file", "apply_patch"]
const COMMAND = ["execute_command"]
const TOOL_SUBSETS: Record<string, { exclude: string[]; mcp: boolean }> = {
  all: { exclude: [], mcp: true },
  "no edit": { exclude: EDIT, mcp: true },
  "no command": { exclude: COMMAND, mcp: true },
  "read-only": { exclude: [...EDIT, ...COMMAND, "browser_action", "use_subagents", "new_task"], mcp: false },
  none: { exclude: [...BUILTIN_TOOL_IDS], mcp: false },
}

interface Case {
  name: string
  context: PromptContext
}

function cases(): Case[] {
  const out: Case[] = []
  for (const variant of BUILTIN_VARIANTS.map((v) => v.id))
    for (const mode of ["act", "plan"] as const)
      for (const audience of ["primary", "subagent"] as const)
        for (const interactive of [true, false])
          for (const autonomy of ["ask", "auto"] as const)
            for (const [subset, { exclude, mcp }] of Object.entries(TOOL_SUBSETS))
              out.push({
                name: `${variant} ${mode} ${audience} ${interactive ? "interactive" : "headless"} ${autonomy} ${subset}`,
                context: basicContext({
                  variant,
                  mode,
                  audience,
                  interactive,
                  autonomy,
                  placement: "system",
                  browser: { viewport: { width: 900, height: 600 } },
                  agent: { name: "promptline", docs: ["docs/agent.md", "https://example.com/agent"] },
                  tools: { exclude },
                  ...(mcp ? {} : { mcpServers: [] }),
                }),
              })
  return out
}

/** Everything the model reads: the system prompt, the context message and the tool descriptions. */
const seen = (p: BuiltPrompt): string =>
  [p.text, p.contextMessage ?? "", ...p.tools.map((t) => `${t.description}\n${t.guidelines.join("\n")}`)].join("\n")

/** Which behaviours a build offers, from its tools and its context. */
function offered(p: BuiltPrompt, ctx: PromptContext) {
  const kinds = new Set(p.tools.map((t) => t.kind))
  return {
    edit: kinds.has("edit") || kinds.has("write"),
    command: kinds.has("execute"),
    list: kinds.has("list"),
    ask: kinds.has("ask"),
    // A person who can answer: the text may ask in a reply even without the ask tool.
    person: ctx.interactive && ctx.autonomy === "ask" && ctx.audience === "primary",
    interactive: ctx.interactive && ctx.audience === "primary",
    tools: p.tools.length > 0,
    sections: new Set(p.sections.map((s) => s.id)),
  }
}

/** A behaviour and the phrases that claim it. */
const CLAIMS: {
  what: string
  phrases: RegExp
  holds: (o: ReturnType<typeof offered>, ctx: PromptContext) => boolean
}[] = [
  {
    what: "editing files",
    phrases: /\bedit files\b|fix what you broke|what changed|Change files with|# Editing files|or changed\b/,
    holds: (o) => o.edit,
  },
  {
    what: "running commands",
    phrases: /(?<!cannot )run commands|run the tests|run only commands|check your own work|`--`|command runs/,
    holds: (o) => o.command,
  },
  { what: "the ask tool", phrases: /Ask with |answers a question/, holds: (o) => o.ask },
  {
    what: "asking a person",
    phrases: /ask one precise question|Discuss it until/,
    holds: (o) => o.person,
  },
  {
    what: "a user who switches modes",
    phrases: /the user switches|switches to act mode|the user may switch|user decides when to switch/,
    holds: (o) => o.interactive,
  },
  { what: "listing with a tool", phrases: /find or ls|start there/, holds: (o) => o.list },
  {
    what: "calling tools",
    phrases: /calling tools|calling the tools|\(none\)|one tool at a time/,
    holds: (o) => o.tools,
  },
  {
    what: "the MCP section",
    phrases: /listed with the (MCP )?servers/,
    holds: (o) => o.sections.has("mcp-servers"),
  },
  { what: "the task-progress parameter", phrases: /task_progress/, holds: (o) => o.sections.has("task-progress") },
  {
    what: "a person reading a subagent's result",
    phrases: /what the user must know|shows the user/,
    holds: (_o, ctx) => ctx.audience === "primary",
  },
]

describe("every sentence is true for the context it is built from", () => {
  const builder = new PromptBuilder({ templates: "strict" })
  const all = cases()

  it("covers the cross product", () => {
    expect(all.length).toBe(BUILTIN_VARIANTS.length * 2 * 2 * 2 * 2 * Object.keys(TOOL_SUBSETS).length)
  })

  it.each(all.map((c) => [c.name, c.context] as const))("%s", (_name, context) => {
    const p = builder.build(context)
    expect(p.diagnostics.filter((d) => d.level === "error")).toEqual([])
    const text = seen(p)
    const names = new Set(p.tools.map((t) => t.name))
    // A built-in tool is named only while it is enabled.
    for (const id of BUILTIN_TOOL_IDS) {
      if (new RegExp(`(^|[^a-z_])${id}([^a-z_]|$)`).test(text)) expect(names.has(id), `mentions ${id}`).toBe(true)
    }
    const o = offered(p, context)
    for (const claim of CLAIMS) {
      const hit = claim.phrases.exec(text)
      if (hit) expect(claim.holds(o, context), `claims ${claim.what}: "${hit[0]}"`).toBe(true)
    }
    if (context.audience === "primary" && context.mode === "plan" && p.text.includes("# Objective"))
      expect(p.text).toMatch(/change nothing/)
  })
})
