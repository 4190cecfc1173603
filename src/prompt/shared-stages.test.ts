import { describe, expect, it } from "vitest"
import { BUILTIN_TOOLS } from "../tools/catalog/index.js"
import { PromptBuilder } from "./builder.js"
import { basicContext } from "./test-helpers/contexts.js"

/** A context equal in content to `basicContext()` but sharing no object with it (as read afresh from JSON). */
const reread = () => JSON.parse(JSON.stringify(basicContext())) as ReturnType<typeof basicContext>

describe("stages shared by builders with the built-in registries", () => {
  it("a new builder reuses the sections an earlier builder rendered for an equal context", () => {
    const first = new PromptBuilder().build(reread())
    const second = new PromptBuilder().build(reread())
    expect(second).toEqual(first)
    const stable = first.sections.find((s) => s.placement === "system")!
    expect(second.sections.find((s) => s.id === stable.id)).toBe(stable)
  })

  it("is per template strictness: a strict builder renders its own", () => {
    const report = new PromptBuilder().build(reread())
    const strict = new PromptBuilder({ templates: "strict" }).build(reread())
    expect(strict.text).toBe(report.text)
    expect(strict.sections[0]).not.toBe(report.sections[0])
  })

  it("a builder given its own registry shares nothing with the others", () => {
    const builtin = new PromptBuilder().build(reread())
    const own = new PromptBuilder({ tools: BUILTIN_TOOLS }).build(reread())
    expect(own.text).toBe(builtin.text)
    expect(own.sections[0]).not.toBe(builtin.sections[0])
    expect(new PromptBuilder({ tools: BUILTIN_TOOLS }).build(reread()).sections[0]).not.toBe(own.sections[0])
  })
})
