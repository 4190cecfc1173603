import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type PromptContext, parseContext, promptContextSchema } from "./prompt-context.js"
import { QUICK_CONTEXT_FIELDS, quickParseContext } from "./quick-parse.js"

/** A value for a field: usually a good one, now and then a wrong one (the quick check must refuse it, or agree). */
function field<T>(good: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  const bad = fc.constantFrom("", undefined, null, 7, 1.5, [], {}, { extra: 1 }, "other")
  return fc.oneof({ arbitrary: good, weight: 30 }, { arbitrary: bad, weight: 1 })
}

/** An object whose keys are each present or not, except the required ones. */
function record(
  fields: Record<string, fc.Arbitrary<unknown>>,
  requiredKeys: string[] = [],
): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(fields, { requiredKeys })
}

/** A field the quick check leaves to zod: present now and then. */
function rare<T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: value, weight: 1 })
}

const text = fc.oneof(
  { arbitrary: fc.constantFrom("src", "AGENTS.md", "bash", "é ü 中"), weight: 6 },
  { arbitrary: fc.string({ maxLength: 8 }), weight: 2 },
)
const dates = fc.oneof(
  { arbitrary: fc.constantFrom("2026-12-01", "1999-01-31"), weight: 8 },
  { arbitrary: fc.constantFrom("2026-1-1", "today", " 2026-12-01", "2026-12-01\n"), weight: 1 },
)
const activation = field(
  fc.oneof(
    record({ when: field(fc.constantFrom("always", "manual")) }, ["when"]),
    record({ when: fc.constant("paths"), globs: field(fc.array(text, { maxLength: 3 })) }, ["when", "globs"]),
    record({ when: fc.constant("requested"), description: field(text) }, ["when", "description"]),
  ),
)
const instruction = field(
  record(
    {
      path: field(text),
      convention: field(text),
      scope: field(fc.constantFrom("user", "project")),
      text: field(text),
      activation,
      base: field(text),
      truncated: field(fc.boolean()),
      nested: field(fc.boolean()),
    },
    ["path", "convention", "scope", "text"],
  ),
)
const skill = field(
  record(
    {
      name: field(text),
      description: field(text),
      path: field(text),
      scope: field(fc.constantFrom("user", "project")),
    },
    ["name", "description", "path"],
  ),
)
const contexts = fc
  .tuple(
    record(
      {
        version: field(fc.constant(1)),
        cwd: field(text),
        platform: field(
          record({ os: field(text), osVersion: field(text), shell: field(text), home: field(text) }, [
            "os",
            "shell",
            "home",
          ]),
        ),
        date: field(dates),
        model: field(record({ id: field(text), provider: field(text) }, ["id", "provider"])),
        mode: field(fc.constantFrom("act", "plan")),
        audience: field(fc.constantFrom("primary", "subagent")),
        interactive: field(fc.boolean()),
        autonomy: field(fc.constantFrom("ask", "auto")),
        features: field(
          record({
            browser: field(fc.boolean()),
            webTools: field(fc.boolean()),
            subagents: field(fc.boolean()),
            taskProgress: field(fc.boolean()),
          }),
        ),
        variant: field(text),
        toolCalling: field(fc.constantFrom("native", "xml")),
        agent: field(
          record({ name: field(text), identity: field(text), docs: field(fc.array(text, { maxLength: 2 })) }),
        ),
        git: field(record({ root: field(text), branch: field(text), status: field(text) }, ["root"])),
        instructions: field(fc.array(instruction, { maxLength: 3 })),
        skills: field(fc.array(skill, { maxLength: 2 })),
        mcpServers: field(fc.constant([])),
        customPrompt: field(
          record({ mode: field(fc.constantFrom("replace", "append")), text: field(text) }, ["mode", "text"]),
        ),
        placement: field(fc.constantFrom("system", "context-message")),
        language: field(text),
      },
      ["version", "cwd", "platform", "date", "model"],
    ),
    rare(record({ include: fc.array(text) })),
    rare(fc.dictionary(text, text)),
    rare(fc.string()),
  )
  .map(([value, tools, overrides, unknownField]) => ({
    ...value,
    ...(tools ? { tools } : {}),
    ...(overrides ? { overrides } : {}),
    ...(unknownField !== undefined ? { unknownField } : {}),
  }))

/** A context as gather makes it: every common field, instruction files and skills. */
const gathered = {
  version: 1,
  cwd: "/work/shop",
  platform: { os: "linux", osVersion: "6.1", shell: "bash", home: "/home/ana" },
  date: "2026-12-01",
  model: { id: "claude-sonnet-4-5", provider: "anthropic" },
  git: { root: "/work/shop", branch: "main", status: " M src/a.ts" },
  instructions: [
    { path: "AGENTS.md", convention: "agents-md", scope: "project", text: "# Rules", base: "." },
    {
      path: ".cursor/rules/ts.mdc",
      convention: "cursor",
      scope: "project",
      text: "Use strict.",
      activation: { when: "paths", globs: ["*.ts"] },
    },
  ],
  skills: [{ name: "release", description: "Cut a release", path: ".claude/skills/release/SKILL.md" }],
  mcpServers: [],
  placement: "system",
}

describe("quickParseContext", () => {
  it("lists the schema's fields in the schema's order, so its output keys come in the same order", () => {
    expect(QUICK_CONTEXT_FIELDS.map((f) => f.key)).toEqual(Object.keys(promptContextSchema.shape))
  })

  it("vouches for a gathered context and a minimal one, giving what zod gives", () => {
    const minimal = {
      version: 1,
      cwd: "/w",
      platform: { os: "linux", shell: "sh", home: "/h" },
      date: "2026-01-02",
      model: { id: "m", provider: "p" },
    }
    for (const value of [gathered, minimal]) {
      const quick = quickParseContext(value)
      expect(quick).toBeDefined()
      expect(JSON.stringify(quick)).toBe(JSON.stringify(promptContextSchema.parse(value)))
    }
  })

  it("leaves to zod what it does not know (tools, MCP snapshots, a wrong value), so errors read as before", () => {
    expect(quickParseContext({ ...gathered, tools: { exclude: ["web_fetch"] } })).toBeUndefined()
    expect(quickParseContext({ ...gathered, mcpServers: [{ name: "fs" }] })).toBeUndefined()
    expect(quickParseContext({ ...gathered, date: "Dec 1" })).toBeUndefined()
    expect(() => parseContext({ ...gathered, date: "Dec 1" })).toThrow(/date: expected a date as YYYY-MM-DD/)
  })

  it("whenever it vouches for a value, zod accepts it too and gives the same data, keys in the same order", () => {
    fc.assert(
      fc.property(contexts, (value) => {
        const quick = quickParseContext(value)
        if (quick === undefined) return
        const parsed = promptContextSchema.safeParse(value)
        expect(parsed.success).toBe(true)
        expect(JSON.stringify(quick)).toBe(JSON.stringify(parsed.data))
        expect(quick).toEqual(parsed.data as PromptContext)
      }),
      { numRuns: 2000 },
    )
  })

  it("vouches for a good share of the generated values (the property above is not vacuous)", () => {
    const values = fc.sample(contexts, { numRuns: 2000, seed: 15 })
    const vouched = values.filter((v) => quickParseContext(v) !== undefined).length
    expect(vouched).toBeGreaterThan(100)
  })
})
