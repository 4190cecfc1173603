import { Ajv } from "ajv"
import fc from "fast-check"
import { encode } from "gpt-tokenizer/encoding/o200k_base"
import { describe, expect, it } from "vitest"
import type { PromptContextInput } from "../../context/prompt-context.js"
import type { JsonSchema, ToolSpec } from "../spec.js"
import { renderXmlToolDocs } from "../xml.js"
import { BUILTIN_TOOL_IDS, BUILTIN_TOOLS } from "./index.js"
import { enableTools, everyBuiltin, richContext } from "./test-helpers/enable.js"

/** The tool ids and parameter names every helper agreed on, in catalog order. */
const AGREED: Record<string, string[]> = {
  execute_command: ["command", "requires_approval", "timeout", "task_progress"],
  read_file: ["path", "start_line", "end_line", "task_progress"],
  write_to_file: ["path", "content", "task_progress"],
  replace_in_file: ["path", "diff", "task_progress"],
  apply_patch: ["input", "task_progress"],
  search_files: ["path", "regex", "file_pattern", "task_progress"],
  list_files: ["path", "recursive", "task_progress"],
  list_code_definition_names: ["path", "task_progress"],
  browser_action: ["action", "url", "coordinate", "text", "task_progress"],
  web_fetch: ["url", "prompt", "task_progress"],
  web_search: ["query", "allowed_domains", "blocked_domains", "task_progress"],
  use_mcp_tool: ["server_name", "tool_name", "arguments", "task_progress"],
  access_mcp_resource: ["server_name", "uri", "task_progress"],
  ask_followup_question: ["question", "options", "task_progress"],
  attempt_completion: ["result", "command", "task_progress"],
  new_task: ["context"],
  plan_mode_respond: ["response", "needs_more_exploration", "task_progress"],
  act_mode_respond: ["response", "task_progress"],
  use_skill: ["skill_name", "task_progress"],
  use_subagents: ["tasks", "task_progress"],
}

const REQUIRED: Record<string, string[]> = {
  execute_command: ["command"],
  read_file: ["path"],
  write_to_file: ["path", "content"],
  replace_in_file: ["path", "diff"],
  apply_patch: ["input"],
  search_files: ["path", "regex"],
  list_files: ["path"],
  list_code_definition_names: ["path"],
  browser_action: ["action"],
  web_fetch: ["url"],
  web_search: ["query"],
  use_mcp_tool: ["server_name", "tool_name", "arguments"],
  access_mcp_resource: ["server_name", "uri"],
  ask_followup_question: ["question"],
  attempt_completion: ["result"],
  new_task: ["context"],
  plan_mode_respond: ["response"],
  act_mode_respond: ["response"],
  use_skill: ["skill_name"],
  use_subagents: ["tasks"],
}

const COMPACT_TOOLS = [
  "execute_command",
  "read_file",
  "write_to_file",
  "replace_in_file",
  "search_files",
  "attempt_completion",
]

const ajv = new Ajv({ strict: true, allErrors: true })

/** Every way a spec's parameters appear: the spec itself and each variant patch. */
function parameterSets(spec: ToolSpec): [string, ToolSpec["parameters"]][] {
  const sets: [string, ToolSpec["parameters"]][] = [[spec.id, spec.parameters]]
  for (const [variant, patch] of Object.entries(spec.variants ?? {})) {
    const patched = Object.fromEntries(
      Object.entries(patch.parameters ?? {}).filter((entry): entry is [string, ToolSpec["parameters"][string]] =>
        Boolean(entry[1]),
      ),
    )
    sets.push([`${spec.id} (${variant})`, patched])
  }
  return sets
}

/** The JSON value a parameter example stands for: JSON text for non-string types, the text itself otherwise. */
function exampleValue(schema: JsonSchema, example: string): unknown {
  return schema.type === "string" ? example : JSON.parse(example)
}

describe("built-in tool catalog", () => {
  it("holds the agreed tools in the documented order, with the agreed parameter names", () => {
    expect(BUILTIN_TOOL_IDS).toEqual(Object.keys(AGREED))
    for (const spec of BUILTIN_TOOLS) {
      expect(Object.keys(spec.parameters), spec.id).toEqual(AGREED[spec.id])
      const required = Object.entries(spec.parameters)
        .filter(([, p]) => p.required)
        .map(([name]) => name)
      expect(required, spec.id).toEqual(REQUIRED[spec.id])
    }
  })

  it("gives every parameter a description and every required one an example", () => {
    for (const spec of BUILTIN_TOOLS) {
      for (const [where, parameters] of parameterSets(spec)) {
        for (const [name, param] of Object.entries(parameters)) {
          expect(param.schema.description?.trim(), `${where}.${name}`).toBeTruthy()
          if (param.required) expect(param.example, `${where}.${name}`).toBeTruthy()
        }
      }
    }
  })

  it("declares valid JSON Schema that its own examples satisfy", () => {
    for (const spec of BUILTIN_TOOLS) {
      for (const [where, parameters] of parameterSets(spec)) {
        for (const [name, param] of Object.entries(parameters)) {
          expect(ajv.validateSchema(param.schema), `${where}.${name}: ${ajv.errorsText()}`).toBe(true)
          if (param.example === undefined) continue
          const validate = ajv.compile(param.schema)
          const value = exampleValue(param.schema, param.example)
          expect(validate(value), `${where}.${name}: ${ajv.errorsText(validate.errors)}`).toBe(true)
        }
      }
    }
  })

  it("keeps each snippet to one line under 25 tokens", () => {
    for (const spec of BUILTIN_TOOLS) {
      for (const snippet of [spec.snippet, ...Object.values(spec.variants ?? {}).map((p) => p.snippet)]) {
        if (snippet === undefined) continue
        expect(snippet, spec.id).not.toContain("\n")
        expect(encode(snippet).length, spec.id).toBeLessThan(25)
      }
    }
  })

  it("keeps the XML docs of every built-in tool within 3,500 o200k tokens", () => {
    const tools = everyBuiltin()
    expect(tools.map((t) => t.id)).toEqual([...BUILTIN_TOOL_IDS])
    expect(tools.every((t) => "task_progress" in t.parameters.properties || t.id === "new_task")).toBe(true)
    expect(encode(renderXmlToolDocs(tools)).length).toBeLessThanOrEqual(3500)
  })

  it("keeps the compact variant's six tools within 500 o200k tokens of XML docs", () => {
    const tools = everyBuiltin("compact", COMPACT_TOOLS)
    expect(tools.map((t) => t.id)).toEqual(COMPACT_TOOLS)
    expect(tools.some((t) => "task_progress" in t.parameters.properties)).toBe(false)
    expect(encode(renderXmlToolDocs(tools, { format: false })).length).toBeLessThan(500)
    // The patches really shorten: the same six tools unpatched are larger.
    const full = renderXmlToolDocs(everyBuiltin("generic", COMPACT_TOOLS), { format: false })
    expect(encode(full).length).toBeGreaterThan(encode(renderXmlToolDocs(tools, { format: false })).length * 1.5)
  })

  it("never puts the working directory, home, date or template syntax in what the model reads", () => {
    const context = richContext({ cwd: "/srv/unique-cwd-marker", date: "2031-07-19" })
    for (const variant of ["generic", "compact"]) {
      const text = JSON.stringify(enableTools(context, variant))
      for (const leak of ["unique-cwd-marker", "2031-07-19", "/home/dev", "${{", "${%", "{{", "{%"]) {
        expect(text, `${variant}: ${leak}`).not.toContain(leak)
      }
    }
  })

  it("names other tools only when they are enabled, under their current names", () => {
    const ids = [...BUILTIN_TOOL_IDS]
    fc.assert(
      fc.property(fc.subarray(ids, { minLength: 1 }), fc.subarray(ids), (enabled, renamed) => {
        const rename = Object.fromEntries(renamed.map((id) => [id, `x_${id.slice(0, 6)}_renamed`]))
        const context = richContext({ mode: "act", tools: { rename } })
        const tools = enableTools(context, "generic", enabled)
        const shown = new Set(tools.map((t) => t.name))
        for (const tool of tools) {
          const text = [tool.description, ...tool.guidelines].join("\n")
          for (const id of ids) {
            // A built-in id is mentioned only as the current name of an enabled tool.
            const pattern = new RegExp(`(^|[^a-z_])${id}([^a-z_]|$)`)
            if (pattern.test(text)) expect(shown.has(id), `${tool.id} mentions ${id}`).toBe(true)
          }
          for (const [id, name] of Object.entries(rename)) {
            if (text.includes(name)) expect(shown.has(name), `${tool.id} mentions ${id}`).toBe(true)
          }
        }
      }),
      { numRuns: 150 },
    )
  })

  it("follows a renamed tool into the descriptions that mention it", () => {
    const context = richContext({ tools: { rename: { list_files: "ls_tree" } } })
    const read = enableTools(context, "generic").find((t) => t.id === "read_file")
    expect(read?.description).toContain("use ls_tree.")
    expect(read?.description).not.toContain("list_files")
  })
})

describe("built-in tool gates", () => {
  const names = (input: Partial<PromptContextInput>, ids?: string[], variant = "generic") =>
    enableTools(richContext(input), variant, ids).map((t) => t.id)

  it("offers browser_action only with the browser feature", () => {
    expect(names({})).toContain("browser_action")
    expect(names({ features: { webTools: true } })).not.toContain("browser_action")
  })

  it("offers the web tools only with the web tools feature", () => {
    expect(names({})).toEqual(expect.arrayContaining(["web_fetch", "web_search"]))
    const off = names({ features: { browser: true } })
    expect(off).not.toContain("web_fetch")
    expect(off).not.toContain("web_search")
  })

  it("offers use_mcp_tool with a server that has tools, access_mcp_resource with one that has resources", () => {
    expect(names({ mcpServers: [] })).not.toContain("use_mcp_tool")
    expect(names({ mcpServers: [] })).not.toContain("access_mcp_resource")
    const toolsOnly = names({ mcpServers: [{ name: "a", tools: [{ name: "t" }] }] })
    expect(toolsOnly).toContain("use_mcp_tool")
    expect(toolsOnly).not.toContain("access_mcp_resource")
    const templatesOnly = names({
      mcpServers: [{ name: "a", resourceTemplates: [{ uriTemplate: "a://{id}", name: "item" }] }],
    })
    expect(templatesOnly).toContain("access_mcp_resource")
    expect(templatesOnly).not.toContain("use_mcp_tool")
  })

  it("hides ask_followup_question when nobody can answer, and new_task when autonomous or a subagent", () => {
    expect(names({})).toEqual(expect.arrayContaining(["ask_followup_question", "new_task"]))
    const auto = names({ autonomy: "auto" })
    expect(auto).not.toContain("ask_followup_question")
    expect(auto).not.toContain("new_task")
    const headless = names({ interactive: false })
    expect(headless).not.toContain("ask_followup_question")
    expect(headless).toContain("new_task")
    const sub = names({ audience: "subagent" })
    expect(sub).not.toContain("ask_followup_question")
    expect(sub).not.toContain("new_task")
  })

  it("offers use_subagents only with the feature, and never to a subagent", () => {
    expect(names({})).toContain("use_subagents")
    expect(names({ features: { browser: true } })).not.toContain("use_subagents")
    expect(names({ audience: "subagent" })).not.toContain("use_subagents")
  })

  it("offers use_skill only with skills", () => {
    expect(names({})).toContain("use_skill")
    expect(names({ skills: [] })).not.toContain("use_skill")
  })

  it("offers the file-changing tools and the completion only in act mode, each mode its own reply tool", () => {
    const act = names({ mode: "act" })
    expect(act).toEqual(
      expect.arrayContaining(["write_to_file", "replace_in_file", "attempt_completion", "act_mode_respond"]),
    )
    expect(act).not.toContain("plan_mode_respond")
    const plan = names({ mode: "plan" })
    for (const id of ["write_to_file", "replace_in_file", "apply_patch", "attempt_completion", "act_mode_respond"]) {
      expect(plan).not.toContain(id)
    }
    expect(plan).toEqual(expect.arrayContaining(["plan_mode_respond", "read_file", "search_files", "execute_command"]))
  })

  it("offers one edit tool: replace_in_file when a variant lists both, apply_patch when it lists only that", () => {
    const both = names({})
    expect(both).toContain("replace_in_file")
    expect(both).not.toContain("apply_patch")
    expect(names({}, ["read_file", "apply_patch"], "gpt")).toEqual(["read_file", "apply_patch"])
    expect(names({ tools: { exclude: ["replace_in_file"] } })).toContain("apply_patch")
  })

  it("adds task_progress only with the feature", () => {
    const on = enableTools(richContext(), "generic")
    expect(on.filter((t) => "task_progress" in t.parameters.properties).length).toBe(on.length - 1)
    const off = enableTools(richContext({ features: { browser: true } }), "generic")
    expect(off.some((t) => "task_progress" in t.parameters.properties)).toBe(false)
  })
})
