import { describe, expect, it } from "vitest"
import { TemplateEngine, TemplateError } from "./template.js"

const scope = { agent: { name: "Ada" }, tools: { by_kind: { read: "read_file", execute: "" } } }

describe("TemplateEngine", () => {
  it("renders ${{ }} values and ${% %} tags, and leaves literal {{ }} alone", () => {
    const engine = new TemplateEngine("strict")
    const r = engine.render(
      "Hi ${{ agent.name }}. Use {{ braces }}.${% if tools.by_kind.read %} Read with ${{ tools.by_kind.read }}.${% endif %}",
      scope,
      "t",
    )
    expect(r.text).toBe("Hi Ada. Use {{ braces }}. Read with read_file.")
  })

  it("treats a missing tool kind (empty string) as false", () => {
    const engine = new TemplateEngine("strict")
    expect(engine.render("${% if tools.by_kind.execute %}run${% else %}none${% endif %}", scope, "t").text).toBe("none")
  })

  it("throws on an undefined variable in strict mode", () => {
    const engine = new TemplateEngine("strict")
    expect(() => engine.render("${{ tools.by_kind.raed }}", scope, "section x")).toThrow(TemplateError)
    expect(() => engine.render("${% if %}", scope, "section x")).toThrow(/section x/)
  })

  it("turns errors into diagnostics in lenient mode, without template syntax in the output", () => {
    const engine = new TemplateEngine("lenient")
    const undefinedVar = engine.render("a ${{ nope.x }} b", scope, "section y")
    expect(undefinedVar.text).toBe("a  b")
    expect(undefinedVar.diagnostics[0]?.code).toBe("template-undefined")
    const syntax = engine.render("a ${% if %} b", scope, "section y")
    expect(syntax.text).toBeUndefined()
    expect(syntax.diagnostics[0]?.code).toBe("template-syntax")
  })

  it("re-renders when a value the template reads changes, and only then", () => {
    const engine = new TemplateEngine("strict")
    const source = "Use ${{ tools.by_kind.read }}"
    expect(engine.render(source, scope, "t").text).toBe("Use read_file")
    const renamed = { ...scope, tools: { by_kind: { read: "cat_file", execute: "" } } }
    expect(engine.render(source, renamed, "t").text).toBe("Use cat_file")
    expect(engine.render(source, scope, "t").text).toBe("Use read_file")
  })

  it("passes plain text through without evaluating it", () => {
    const engine = new TemplateEngine("strict")
    expect(engine.render("no syntax at all", scope, "t").text).toBe("no syntax at all")
  })
})
