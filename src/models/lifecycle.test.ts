import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { createContext } from "../context/prompt-context.js"
import { PromptBuilder } from "../prompt/builder.js"
import { MODEL_CATALOG } from "./catalog.js"
import { lifecycleDiagnostic, lifecycleState, successorOf } from "./lifecycle.js"
import { resolveModel } from "./resolve.js"

/** A real calendar day written YYYY-MM-DD. */
const isDay = (text: string | undefined) =>
  text !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(text) && new Date(`${text}T00:00:00Z`).toISOString().startsWith(text)

const day = fc
  .date({ min: new Date("2024-01-01T00:00:00Z"), max: new Date("2028-12-31T00:00:00Z"), noInvalidDate: true })
  .map((d) => d.toISOString().slice(0, 10))

const sonnet45 = resolveModel("claude-sonnet-4-5").model

describe("a model's lifecycle on a given day", () => {
  it("is active before the deprecation, deprecated from it, retired from the retirement day on", () => {
    expect(lifecycleState(sonnet45, "2026-09-29")).toBe("active")
    expect(lifecycleState(sonnet45, "2026-09-30")).toBe("deprecated")
    expect(lifecycleState(sonnet45, "2026-11-29")).toBe("deprecated")
    expect(lifecycleState(sonnet45, "2026-11-30")).toBe("retired")
    expect(lifecycleState(resolveModel("claude-sonnet-5-5").model, "2030-01-01")).toBe("active")
  })

  it("never goes back: a later day is never in an earlier state (property, every catalog row)", () => {
    const order = ["active", "deprecated", "retired"]
    fc.assert(
      fc.property(fc.constantFrom(...MODEL_CATALOG), day, day, (row, a, b) => {
        const [early, late] = a <= b ? [a, b] : [b, a]
        expect(order.indexOf(lifecycleState(row, early))).toBeLessThanOrEqual(order.indexOf(lifecycleState(row, late)))
      }),
    )
  })

  it("names the successor to move to, past successors that are retired by then", () => {
    const sonnet37 = resolveModel("claude-3-7-sonnet-20250219").model
    expect(successorOf(sonnet37, "2026-03-01")).toBe("claude-sonnet-4-5-20250929")
    expect(successorOf(sonnet37, "2026-12-01")).toBe("claude-sonnet-5-5")
    expect(successorOf(resolveModel("gpt-5").model, "2026-12-01")).toBe("gpt-6.1-sol")
  })
})

describe("the warning a build gives", () => {
  const build = (model: string, date: string, provider = "anthropic") =>
    new PromptBuilder()
      .build(
        createContext({
          cwd: "/w",
          platform: { os: "Linux", shell: "bash", home: "/h" },
          date,
          model: { id: model, provider },
        }),
      )
      .diagnostics.filter((d) => d.code.startsWith("model-"))

  it("for a retired model names its end and its successor; as of the context's date, not the clock's", () => {
    expect(build("claude-sonnet-4-5", "2026-12-01")).toEqual([
      {
        level: "warning",
        code: "model-retired",
        message:
          'model "claude-sonnet-4-5" (claude-sonnet-4-5-20250929) was retired by anthropic on 2026-11-30: requests to it fail (https://platform.claude.com/docs/en/about-claude/model-deprecations). Use "claude-sonnet-5-5", its successor (--model claude-sonnet-5-5, or "model" in promptline.config.json).',
      },
    ])
    expect(build("claude-sonnet-4-5", "2026-10-01")).toEqual([
      expect.objectContaining({
        code: "model-deprecated",
        message: expect.stringContaining("is deprecated since 2026-09-30 and retires on 2026-11-30"),
      }),
    ])
    expect(build("claude-sonnet-4-5", "2026-09-01")).toEqual([])
    expect(build("claude-sonnet-5-5", "2026-12-01")).toEqual([])
  })

  it("not for a model served by another provider (Bedrock, a router), whose schedule differs", () => {
    expect(build("claude-sonnet-4-5", "2026-12-01", "bedrock")).toEqual([])
    expect(
      lifecycleDiagnostic(resolveModel("claude-sonnet-4-5", { provider: "openrouter" }).model, "2027-01-01"),
    ).toBeUndefined()
  })
})

describe("every catalog row's lifecycle is well-formed and cited", () => {
  it("has days in order, a cited source, and a successor that is not the model itself", () => {
    const dated = MODEL_CATALOG.filter((row) => row.lifecycle)
    expect(dated.length).toBeGreaterThan(10)
    for (const row of dated) {
      const life = row.lifecycle!
      expect(isDay(life.retires), row.id).toBe(true)
      expect(isDay(life.checked), row.id).toBe(true)
      if (life.deprecated !== undefined) {
        expect(isDay(life.deprecated), row.id).toBe(true)
        expect(life.deprecated <= life.retires, row.id).toBe(true)
      }
      expect(life.source, row.id).toMatch(/^https:\/\/[a-z0-9.-]+\.[a-z]{2,}\//)
      expect([row.id, ...(row.aliases ?? [])], row.id).not.toContain(life.successor)
      // A successor in the catalog retires after the model it replaces.
      const successor = life.successor
      const next = successor
        ? MODEL_CATALOG.find((m) => m.id === successor || m.aliases?.includes(successor))
        : undefined
      if (next?.lifecycle) expect(next.lifecycle.retires > life.retires, row.id).toBe(true)
    }
  })
})
