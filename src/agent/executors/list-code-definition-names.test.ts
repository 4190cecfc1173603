import { cp } from "node:fs/promises"
import path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DefinitionParser } from "./definitions.js"
import { type TempWorkspace, tempWorkspace, textOf } from "./test-helpers/workspace.js"

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../test/fixtures/agent/definitions")

let ws: TempWorkspace
const parser = new DefinitionParser()
beforeAll(async () => {
  ws = await tempWorkspace()
  await cp(fixtures, path.join(ws.root, "code"), { recursive: true })
  await ws.write("code/sub/hidden.ts", "export function notListed() {}\n")
})
afterAll(async () => {
  await parser.close()
  await ws.dispose()
})

describe("list_code_definition_names", () => {
  it("outlines every supported file of a folder (not its sub-folders)", async () => {
    const out = await ws.run("list_code_definition_names", { path: "code" }, { definitions: parser })
    expect(out.isError).toBe(false)
    const text = textOf(out)
    expect(text).not.toContain("notListed")
    expect(text).not.toContain("notes.txt")
    expect(out.details).toMatchObject({ files: 6 })
    expect(text).toMatchSnapshot()
  })

  it.each([
    [
      "shapes.ts",
      [
        "export interface Shape {",
        "export abstract class Base implements Shape {",
        "  abstract area(): number",
        "  static unit(): Unit {",
        "export const scale = (shape: Shape, k: number): number => shape.area() * k",
        "export default async function load(file: string): Promise<string> {",
        "namespace Geometry {",
      ],
      ["const LIMIT = 10"],
    ],
    [
      "widget.jsx",
      ["export function Widget({ title }) {", "  render() {", "const helper = function (x) {"],
      ["module.exports"],
    ],
    [
      "inventory.py",
      [
        "class Item:",
        "  def restock(self, n: int) -> None:",
        "  def empty(self) -> bool:",
        "def total(items: list[Item]) -> int:",
        "async def fetch_items(source):",
      ],
      ["MAX_ITEMS", "@property"],
    ],
    [
      "server.go",
      [
        "type Server struct {",
        "type Handler interface {",
        "func New(addr string) *Server {",
        "func (s *Server) Start() error {",
      ],
      ["DefaultAddr"],
    ],
    [
      "queue.rs",
      [
        "pub struct Queue<T> {",
        "pub enum Full {",
        "pub trait Drain {",
        "  fn drain_all(&mut self) -> usize;",
        "impl<T> Queue<T> {",
        "  pub fn push(&mut self, item: T) -> Result<(), Full> {",
        "pub fn capacity() -> usize {",
        "macro_rules! queue {",
        "mod tests {}",
      ],
      ["use std"],
    ],
    [
      "Ledger.java",
      [
        "public class Ledger {",
        "  public Ledger(List<String> accounts) {",
        "  public int size() {",
        "  interface Auditor {",
        "enum Currency { EUR, USD }",
        "record Entry(String account, long cents) {}",
      ],
      ["private final"],
    ],
  ])("finds the definitions of %s", async (file, present, absent) => {
    const out = await ws.run("list_code_definition_names", { path: `code/${file}` }, { definitions: parser })
    const rows = textOf(out)
      .split("\n")
      .slice(1)
      .map((r) => r.replace(/^\s*\d+\| /, ""))
    for (const p of present) expect(rows).toContain(p)
    for (const a of absent) expect(rows.some((r) => r.includes(a))).toBe(false)
  })

  it("reports line numbers", async () => {
    const out = await ws.run("list_code_definition_names", { path: "code/server.go" }, { definitions: parser })
    expect(textOf(out)).toContain("16| func New(addr string) *Server {")
  })

  it("creates and closes its own parser when the env has none", async () => {
    const out = await ws.run("list_code_definition_names", { path: "code/inventory.py" })
    expect(out.summary).toBe("outlined code/inventory.py (5 definitions in 1 file)")
  })

  it("caps the number of files with a notice", async () => {
    const out = await ws.run(
      "list_code_definition_names",
      { path: "code" },
      { definitions: parser, limits: { definitionsMaxFiles: 2 } },
    )
    expect(textOf(out)).toContain("[Outlined the first 2 of 6 source files.")
  })

  it("says so for a folder without source files and refuses paths outside the workspace", async () => {
    await ws.write("docs/a.md", "# a")
    expect(textOf(await ws.run("list_code_definition_names", { path: "docs" }))).toContain("No supported source files")
    expect((await ws.run("list_code_definition_names", { path: "../" })).isError).toBe(true)
  })
})
