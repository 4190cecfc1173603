import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createContext, type PromptContext, parseContext } from "../context/prompt-context.js"
import { build, PromptBuilder } from "./builder.js"

const text = fc.string({ maxLength: 40 })
const arbitraryContext: fc.Arbitrary<PromptContext> = fc
  .record({
    model: fc.constantFrom(
      { id: "claude-sonnet-4-5", provider: "anthropic" },
      { id: "gpt-5", provider: "openai" },
      { id: "gemini-2.5-pro", provider: "gemini" },
      { id: "qwen3-coder:30b", provider: "ollama" },
      { id: "mystery-model", provider: "acme" },
    ),
    mode: fc.constantFrom("act" as const, "plan" as const),
    audience: fc.constantFrom("primary" as const, "subagent" as const),
    interactive: fc.boolean(),
    autonomy: fc.constantFrom("ask" as const, "auto" as const),
    features: fc.record({
      browser: fc.boolean(),
      webTools: fc.boolean(),
      subagents: fc.boolean(),
      taskProgress: fc.boolean(),
    }),
    placement: fc.constantFrom("system" as const, "context-message" as const),
    toolCalling: fc.constantFrom(undefined, "native" as const, "xml" as const),
    exclude: fc.subarray(["read_file", "execute_command", "search_files", "list_files", "attempt_completion"]),
    instructions: fc.array(fc.record({ path: fc.constantFrom("AGENTS.md", "CLAUDE.md", "a/AGENTS.md"), text }), {
      maxLength: 3,
    }),
    skills: fc.array(fc.record({ name: fc.constantFrom("a", "b"), description: text.filter((t) => t.length > 0) }), {
      maxLength: 2,
    }),
    servers: fc.array(
      fc.record({
        name: fc.constantFrom("s1", "s2"),
        tool: fc.constantFrom("t1", "t 2", "x".repeat(70)),
        instructions: text,
      }),
      { maxLength: 2 },
    ),
    date: fc.constantFrom("2026-01-01", "2026-11-29"),
    custom: fc.option(fc.record({ mode: fc.constantFrom("replace" as const, "append" as const), text })),
  })
  .map((r) =>
    createContext({
      cwd: "/w",
      platform: { os: "Linux", shell: "bash", home: "/h" },
      date: r.date,
      model: r.model,
      mode: r.mode,
      audience: r.audience,
      interactive: r.interactive,
      autonomy: r.autonomy,
      features: r.features,
      placement: r.placement,
      ...(r.toolCalling ? { toolCalling: r.toolCalling } : {}),
      tools: { exclude: r.exclude },
      instructions: r.instructions.map((i) => ({ ...i, convention: "agents-md", scope: "project" as const })),
      skills: r.skills.map((s) => ({ ...s, path: `${s.name}/SKILL.md` })),
      mcpServers: r.servers.map((s) => ({
        name: s.name,
        instructions: s.instructions,
        tools: [{ name: s.tool, inputSchema: { type: "object" } }],
      })),
      ...(r.custom ? { customPrompt: r.custom } : {}),
    }),
  )

/** One generated context, for the list of its fields. */
const arbitraryContextSample = (): PromptContext => fc.sample(arbitraryContext, { numRuns: 1, seed: 1 })[0]!

describe("determinism (property)", () => {
  it("the same context gives the same bytes, whatever was built before with the same builder", () => {
    const shared = new PromptBuilder()
    fc.assert(
      fc.property(arbitraryContext, arbitraryContext, (a, b) => {
        const fresh = JSON.stringify(build(a))
        shared.build(b)
        const warm = JSON.stringify(shared.build(createContext(JSON.parse(JSON.stringify(a)))))
        expect(warm).toBe(fresh)
      }),
      { numRuns: 150 },
    )
  })

  it("a context changed field by field, as an agent changes it, builds the same bytes as a fresh one", () => {
    // Unchanged fields keep their identity, so the builder's memoized stages are reused: a stage that
    // reads a field it did not declare would return stale text here.
    const shared = new PromptBuilder()
    const fields = Object.keys(arbitraryContextSample()) as (keyof PromptContext)[]
    fc.assert(
      fc.property(
        arbitraryContext,
        arbitraryContext,
        fc.subarray(fields, { minLength: 1, maxLength: 2 }),
        (a, b, changed) => {
          shared.build(b)
          const mixed = { ...b } as Record<string, unknown>
          for (const f of changed) mixed[f] = a[f]
          const next = mixed as PromptContext
          const warm = JSON.stringify(shared.build(next))
          const fresh = JSON.stringify(build(parseContext(JSON.parse(JSON.stringify(next)))))
          expect(warm).toBe(fresh)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("fields equal in content but fresh objects (read again from JSON) build the same bytes as a fresh builder", () => {
    // The builder gives structurally equal fields one identity; equating two unequal ones would
    // return stale text here.
    const shared = new PromptBuilder()
    const fields = Object.keys(arbitraryContextSample()) as (keyof PromptContext)[]
    const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
    fc.assert(
      fc.property(
        arbitraryContext,
        arbitraryContext,
        fc.subarray(fields, { minLength: 1, maxLength: 3 }),
        (a, b, fromA) => {
          shared.build(a)
          shared.build(b)
          const mixed = copy(b) as Record<string, unknown>
          for (const f of fromA) {
            if (a[f] === undefined) delete mixed[f]
            else mixed[f] = copy(a[f])
          }
          const next = mixed as PromptContext
          const fresh = JSON.stringify(build(parseContext(copy(next))))
          expect(JSON.stringify(shared.build(next))).toBe(fresh)
          expect(JSON.stringify(shared.build(copy(next)))).toBe(fresh)
        },
      ),
      { numRuns: 300 },
    )
  })

  it("a re-read copy with a new date and git status builds the same bytes as a build with no cache", () => {
    // The volatile sections are rendered again; every other stage comes from the equal fields of the
    // earlier build. A stale volatile section, or a stable one keyed too loosely, would differ here.
    const shared = new PromptBuilder()
    const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T
    const git = fc.option(
      fc.record({ root: fc.constantFrom("/w", "/r"), branch: fc.option(text, { nil: undefined }), status: text }),
      { nil: undefined },
    )
    fc.assert(
      fc.property(arbitraryContext, fc.constantFrom("2027-03-04", "2026-11-29"), git, (a, date, repo) => {
        shared.build(a)
        const moved = copy({ ...a, date, ...(repo ? { git: repo } : {}) }) as PromptContext
        const fresh = JSON.stringify(build(parseContext(copy(moved))))
        expect(JSON.stringify(shared.build(moved))).toBe(fresh)
        expect(JSON.stringify(shared.build(copy(moved)))).toBe(fresh)
      }),
      { numRuns: 200 },
    )
  })

  it("the model never sees template syntax from our own text", () => {
    fc.assert(
      fc.property(arbitraryContext, (ctx) => {
        const p = build(ctx)
        const ours = p.sections.filter(
          (s) =>
            s.id !== "custom-prompt" && s.id !== "user-instructions" && s.id !== "skills" && s.id !== "mcp-servers",
        )
        for (const s of ours) expect(s.text).not.toMatch(/\$\{[{%]/)
      }),
      { numRuns: 100 },
    )
  })
})
