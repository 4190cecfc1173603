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

  it("throws on an undefined variable in strict mode, naming the template, line and variable", () => {
    const engine = new TemplateEngine("strict")
    expect(() => engine.render("${% if %}", scope, "section x")).toThrow(/section x/)
    let thrown: unknown
    try {
      engine.render("first line\nthen ${{ tools.by_kind.raed }}", scope, "section x")
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TemplateError)
    expect(thrown).toMatchObject({ where: "section x", line: 2, variable: "tools.by_kind.raed" })
    expect((thrown as Error).message).toBe(
      'section x, line 2: undefined template variable "tools.by_kind.raed"; the text is left out',
    )
  })

  it("reports errors as error diagnostics by default and leaves the text out instead of guessing", () => {
    const engine = new TemplateEngine()
    expect(engine.strictness).toBe("report")
    const undefinedVar = engine.render("a\nb ${{ nope.x }} c", scope, "section y")
    expect(undefinedVar.text).toBeUndefined()
    expect(undefinedVar.diagnostics).toEqual([
      {
        level: "error",
        code: "template-undefined",
        message: 'section y, line 2: undefined template variable "nope"; the text is left out',
        path: "section y",
        line: 2,
      },
    ])
    const inTag = engine.render("${% if tools.by_kind.nope.deeper %}x${% endif %}", scope, "tool t description")
    expect(inTag.text).toBeUndefined()
    expect(inTag.diagnostics[0]).toMatchObject({ level: "error", code: "template-undefined", line: 1 })
    const syntax = engine.render("a ${% if %} b", scope, "section y")
    expect(syntax.text).toBeUndefined()
    expect(syntax.diagnostics[0]).toMatchObject({ level: "error", code: "template-syntax", path: "section y" })
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
