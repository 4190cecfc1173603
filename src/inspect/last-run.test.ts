import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { compareToolOrder, lastRunFile, readLastRuns, saveLastRun } from "./last-run.js"

describe("compareToolOrder", () => {
  it("tells same, reordered and changed apart", () => {
    expect(compareToolOrder(["a", "b", "c"], ["a", "b", "c"])).toEqual({ kind: "same" })
    expect(compareToolOrder(["a", "b", "c"], ["a", "c", "b"])).toEqual({
      kind: "reordered",
      position: 1,
      before: "b",
      now: "c",
    })
    expect(compareToolOrder(["a", "b"], ["b", "c"])).toEqual({ kind: "changed", added: ["c"], removed: ["a"] })
  })

  it("calls any permutation of the same tools 'reordered' unless it is the identity (property)", () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z_]{1,6}$/), { minLength: 1, maxLength: 12 })
    fc.assert(
      fc.property(
        names.chain((list) => fc.tuple(fc.constant(list), fc.shuffledSubarray(list, { minLength: list.length }))),
        ([before, now]) => {
          const change = compareToolOrder(before, now)
          const same = before.every((t, i) => now[i] === t)
          return same ? change.kind === "same" : change.kind === "reordered" && now[change.position] === change.now
        },
      ),
    )
  })
})

describe("lastRunFile", () => {
  it("gives each workspace its own file under the cache folder, named after the folder", () => {
    const a = lastRunFile("/cache", "/home/dev/shop")
    expect(a.startsWith(join("/cache", "inspect", "shop-"))).toBe(true)
    expect(a.endsWith(".json")).toBe(true)
    expect(lastRunFile("/cache", "/other/shop")).not.toBe(a)
    expect(lastRunFile("/cache", "/home/dev/shop")).toBe(a)
    expect(lastRunFile("/cache", '/w/q" evil=<x>')).not.toMatch(/["<>= ]/)
  })
})

describe("readLastRuns / saveLastRun", () => {
  let dir: string
  let file: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "pl-last-run-"))
    file = lastRunFile(dir, "/home/dev/project")
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it("a workspace without the file has no last runs and no diagnostics", async () => {
    expect(await readLastRuns(file)).toEqual({ runs: { version: 1, models: {} }, diagnostics: [] })
  })

  it("keeps other models' runs, sorts models, and leaves no temporary file", async () => {
    await saveLastRun(file, { version: 1, models: {} }, "gpt-5", { tools: ["b", "a"], hash: "h1" })
    const first = await readLastRuns(file)
    await saveLastRun(file, first.runs, "claude-sonnet-4-5", { tools: ["x"], hash: "h2" })
    const { runs, diagnostics } = await readLastRuns(file)
    expect(diagnostics).toEqual([])
    expect(Object.keys(runs.models)).toEqual(["claude-sonnet-4-5", "gpt-5"])
    expect(runs.models["gpt-5"]).toEqual({ tools: ["b", "a"], hash: "h1" })
    expect(await readdir(join(dir, "inspect"))).toEqual([file.slice(join(dir, "inspect").length + 1)])
    expect(JSON.parse(await readFile(file, "utf8")).version).toBe(1)
  })

  it("a malformed file is an empty record plus a warning naming it", async () => {
    await mkdir(join(dir, "inspect"))
    await writeFile(file, "{ not json")
    const { runs, diagnostics } = await readLastRuns(file)
    expect(runs.models).toEqual({})
    expect(diagnostics).toEqual([expect.objectContaining({ level: "warning", code: "last-run-invalid", path: file })])
  })

  it("drops entries of the wrong shape and keeps the good ones", async () => {
    await mkdir(join(dir, "inspect"))
    const content = { version: 1, models: { good: { tools: ["a"], hash: "h" }, bad: { tools: "a" } } }
    await writeFile(file, JSON.stringify(content))
    expect((await readLastRuns(file)).runs.models).toEqual({ good: { tools: ["a"], hash: "h" } })
  })

  it("a folder in the file's place is reported, not thrown", async () => {
    await mkdir(file, { recursive: true })
    const { diagnostics } = await readLastRuns(file)
    expect(diagnostics.map((d) => d.code)).toEqual(["last-run-unreadable"])
  })
})
