import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import { PromptlineError } from "../errors.js"
import { ChangeLog } from "./change-log.js"
import type { Edit } from "./edits.js"
import type { Message } from "./message.js"

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/history")
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-changelog-"))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const history = generateHistory({ messages: 60, fileLines: 5 })

/** A random edit over the history (ids and block indexes valid). */
const editArb: fc.Arbitrary<Omit<Edit, "ts">> = fc.oneof(
  fc.record({ m: fc.integer({ min: 0, max: 59 }), text: fc.string({ maxLength: 20 }) }).map(({ m, text }) => ({
    kind: "dedup" as const,
    messageId: history[m]!.id,
    block: 0,
    content: { type: "text" as const, text },
  })),
  fc.record({ m: fc.integer({ min: 0, max: 59 }), text: fc.constantFrom("note A", "note B") }).map(({ m, text }) => ({
    kind: "notice" as const,
    messageId: history[m]!.id,
    text,
  })),
  fc
    .tuple(fc.integer({ min: 2, max: 58 }), fc.integer({ min: 0, max: 20 }))
    .map(([a, len]) => ({ kind: "truncation" as const, from: history[a]!.id, to: history[Math.min(58, a + len)]!.id })),
  fc
    .tuple(fc.integer({ min: 2, max: 50 }), fc.integer({ min: 0, max: 6 }), fc.string({ maxLength: 10 }))
    .map(([a, len, summary]) => ({
      kind: "compaction" as const,
      from: history[a]!.id,
      to: history[a + len]!.id,
      summary,
    })),
)

describe("ChangeLog", () => {
  it("undo(ts) restores exactly the view of that time (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(editArb, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 12 }),
        fc.nat(),
        (steps, pick) => {
          const log = new ChangeLog()
          const snapshots: { ts: number; view: Message[] }[] = [{ ts: 0, view: structuredClone(log.view(history)) }]
          steps.forEach((step, i) => {
            const ts = (i + 1) * 10
            log.add(step.map((e) => ({ ...e, ts }) as Edit))
            snapshots.push({ ts, view: structuredClone(log.view(history)) })
          })
          const target = snapshots[pick % snapshots.length]!
          log.undo(target.ts)
          expect(log.view(history)).toEqual(target.view)
          expect(log.edits.every((e) => e.ts <= target.ts)).toBe(true)
        },
      ),
      { numRuns: 150 },
    )
  })

  it("the view of a growing history equals a fresh log's view, whatever edits come between (property)", () => {
    // The log extends its last view while the history only grows; edits, ranges whose end arrives
    // later, a repeated id and a history array changed in place must all give what a log with no memory gives.
    const step = fc.oneof(
      fc.record({ grow: fc.integer({ min: 0, max: 8 }) }),
      fc.record({ edits: fc.array(editArb, { minLength: 1, maxLength: 2 }) }),
      fc.record({ replace: fc.nat() }),
      fc.record({ repeat: fc.nat() }),
      fc.record({ undo: fc.nat() }),
      fc.record({ late: fc.array(editArb, { minLength: 1, maxLength: 2 }), back: fc.nat() }),
      // A truncation anywhere, the first messages and the last included: most hide a run of the last view.
      fc.record({ cut: fc.tuple(fc.nat(59), fc.nat(20)) }),
    )
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), fc.boolean(), (steps, inPlace) => {
        const log = new ChangeLog()
        let prefix: Message[] = history.slice(0, 2)
        let ts = 0
        for (const s of steps) {
          if ("grow" in s) {
            const next = history.slice(prefix.length, prefix.length + s.grow)
            if (inPlace) prefix.push(...next)
            else prefix = [...prefix, ...next]
          } else if ("edits" in s) log.add(s.edits.map((e) => ({ ...e, ts: ++ts }) as Edit))
          else if ("cut" in s) {
            const [from, length] = s.cut
            const to = Math.min(59, from + length)
            log.add([{ kind: "truncation", ts: ++ts, from: history[from]!.id, to: history[to]!.id }])
          } else if ("undo" in s) {
            // Edits taken back: the views made with them must not come back.
            ts = s.undo % (ts + 1)
            log.undo(ts)
          } else if ("late" in s) {
            // Edits older than the newest one (added from outside): sorted in, not appended.
            const at = s.back % (ts + 1)
            log.add(s.late.map((e) => ({ ...e, ts: at }) as Edit))
          } else if ("repeat" in s) {
            // A message whose id is already in the history: a range naming that id now ends elsewhere.
            const again = { ...prefix[s.repeat % prefix.length]! }
            if (inPlace) prefix.push(again)
            else prefix = [...prefix, again]
          } else {
            // A message swapped for an equal copy: not the same object, so not the history seen before.
            const at = s.replace % prefix.length
            const copy = { ...prefix[at]! }
            if (inPlace) prefix[at] = copy
            else prefix = prefix.map((m, i) => (i === at ? copy : m))
          }
          expect(log.view(prefix)).toEqual(new ChangeLog(log.edits).view(prefix))
        }
      }),
      { numRuns: 300 },
    )
  })

  it("hides a new truncation's run in the view it made before as a rebuild would, wherever the run starts", () => {
    for (let from = 0; from < 12; from++)
      for (let to = from; to < from + 4; to++) {
        const log = new ChangeLog()
        const prefix = history.slice(0, 16)
        log.view(prefix)
        log.add([{ kind: "truncation", ts: 1, from: history[from]!.id, to: history[to]!.id }])
        expect(log.view(prefix), `${from}-${to}`).toEqual(new ChangeLog(log.edits).view(prefix))
        // A second run right after the first, and one that overlaps it (that one rebuilds).
        log.add([{ kind: "truncation", ts: 2, from: history[to + 1]!.id, to: history[to + 2]!.id }])
        expect(log.view(prefix)).toEqual(new ChangeLog(log.edits).view(prefix))
        log.add([{ kind: "truncation", ts: 3, from: history[to]!.id, to: history[to + 3]!.id }])
        expect(log.view(prefix)).toEqual(new ChangeLog(log.edits).view(prefix))
      }
  })

  it("rebuilds, not extends, a view when a new message repeats the id that ends a hidden range", () => {
    const log = new ChangeLog([{ kind: "truncation", ts: 1, from: history[4]!.id, to: history[6]!.id }])
    const prefix = history.slice(0, 10)
    log.view(prefix)
    const grown = [...prefix, { ...history[6]! }]
    const ids = (view: Message[]) => view.map((m) => m.id)
    expect(ids(log.view(grown))).toEqual(ids(new ChangeLog(log.edits).view(grown)))
  })

  it("round-trips through a file, written atomically with no temporary file left", async () => {
    const file = join(dir, "log.json")
    const log = new ChangeLog([
      { kind: "truncation", ts: 5, from: history[2]!.id, to: history[9]!.id },
      { kind: "notice", ts: 5, messageId: history[1]!.id, text: "cut" },
    ])
    await log.save(file)
    const again = await ChangeLog.load(file)
    expect(again.edits).toEqual(log.edits)
    expect(again.view(history)).toEqual(log.view(history))
    const { readdir } = await import("node:fs/promises")
    expect((await readdir(dir)).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })

  it("loads a missing file as an empty log and reports a broken one with its line", async () => {
    expect((await ChangeLog.load(join(dir, "none.json"))).edits).toEqual([])
    const bad = join(dir, "bad.json")
    await writeFile(bad, '{\n  "schema": 1,\n  "edits": [\n')
    await expect(ChangeLog.load(bad)).rejects.toThrow(/bad\.json:4/)
    await writeFile(bad, '{ "schema": 1, "edits": [{ "kind": "truncation", "ts": "x" }] }')
    await expect(ChangeLog.load(bad)).rejects.toMatchObject({ code: "change-log-invalid" })
    await writeFile(bad, '{ "schema": 9, "edits": [] }')
    await expect(ChangeLog.load(bad)).rejects.toBeInstanceOf(PromptlineError)
  })

  it("migrates a schema 0 file (index-based) using the history", async () => {
    const small = JSON.parse(await readFile(join(fixtures, "small-history.json"), "utf8")) as Message[]
    const file = join(fixtures, "change-log-v0.json")
    await expect(ChangeLog.load(file)).rejects.toMatchObject({ code: "change-log-invalid" })
    const log = await ChangeLog.load(file, small)
    expect(log.edits.map((e) => e.kind)).toEqual(["dedup", "dedup", "truncation"])
    const view = log.view(small)
    expect(view.map((m) => m.id)).toEqual(["m0", "m1", "m6", "m7", "m8"])
    expect(view[0]!.content[0]).toEqual({ type: "text", text: "Fix the bug. [an older copy of a.ts was removed]" })
    // m1's call lost its result to the cut and m6's result lost its call: both became text.
    expect(view[1]!.content.some((b) => b.type === "tool_use")).toBe(false)
    expect(view[2]!.content.some((b) => b.type === "tool_result")).toBe(false)
    // Saved again, it is schema 1.
    const out = join(dir, "migrated.json")
    await log.save(out)
    expect(JSON.parse(await readFile(out, "utf8")).schema).toBe(1)
  })
})
