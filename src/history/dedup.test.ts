import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import { ChangeLog } from "./change-log.js"
import { DedupMemo, dedupFileReads, dedupNotice } from "./dedup.js"
import type { Block, Message } from "./message.js"
import { cutEdits, plannedCut } from "./truncate.js"

let n = 0
const msg = (role: Message["role"], ...content: Block[]): Message => ({ id: `m${n++}`, role, ts: n, content })
const read = (id: string, path: string, extra: Record<string, unknown> = {}): Block => ({
  type: "tool_use",
  id,
  name: "read_file",
  input: { path, ...extra },
})
const result = (id: string, content: string): Block => ({ type: "tool_result", toolUseId: id, content })

/** A conversation with three reads of a.ts, one ranged read, a mention and an edit result. */
function conversation(idOf: (i: number) => string): Message[] {
  n = 0
  return [
    msg("user", { type: "text", text: 'Fix it.\n<file_content path="a.ts">\nA0\n</file_content>' }),
    msg("assistant", read(idOf(1), "a.ts")),
    msg("user", result(idOf(1), "A1")),
    msg("assistant", read(idOf(2), "a.ts", { start_line: 1, end_line: 5 })),
    msg("user", result(idOf(2), "A-lines")),
    msg("assistant", { type: "tool_use", id: idOf(3), name: "replace_in_file", input: { path: "a.ts", diff: "…" } }),
    msg("user", result(idOf(3), 'Applied.\n<final_file_content path="a.ts">\nA2\n</final_file_content>')),
    msg("assistant", read(idOf(4), "b.ts")),
    msg("user", result(idOf(4), "B1")),
    msg("assistant", read(idOf(5), "a.ts")),
    msg("user", result(idOf(5), "A3")),
  ]
}

describe.each([
  ["native", (i: number) => `toolu_${i}`],
  ["XML dialect", (i: number) => `xml_${i}_0`],
])("dedupFileReads on a %s history", (_dialect, idOf) => {
  it("keeps the newest copy of each file and replaces older ones with a notice", () => {
    const history = conversation(idOf)
    const edits = dedupFileReads(history, { now: 100 })
    const log = new ChangeLog(edits)
    const view = log.view(history)
    const texts = view.map((m) => JSON.stringify(m.content))
    expect(texts[0]).toContain(dedupNotice("a.ts"))
    expect(texts[0]).toContain("Fix it.")
    expect(texts[2]).toContain(dedupNotice("a.ts"))
    expect(texts[4]).toContain(dedupNotice("a.ts")) // the ranged read is older than a whole copy
    expect(texts[6]).toContain("Applied.")
    expect(texts[6]).not.toContain("A2")
    expect(texts[8]).toContain("B1") // only copy of b.ts
    expect(texts[10]).toContain("A3") // newest copy of a.ts
    expect(edits.every((e) => e.kind === "dedup" && e.ts === 100)).toBe(true)
    expect(edits.map((e) => e.messageId)).toEqual(["m0", "m2", "m4", "m6"])
    // Idempotent: the view holds nothing more to dedup.
    expect(dedupFileReads(view, { now: 101 })).toEqual([])
  })

  it("takes a result's call to be the last call with its id, also when that call is not a read", () => {
    n = 0
    const history = [
      msg("user", { type: "text", text: "Go." }),
      msg("assistant", read(idOf(1), "a.ts")),
      msg("user", result(idOf(1), "A1")),
      // The same id again, for a command: the result below belongs to it, so it is no copy of a.ts.
      msg("assistant", read(idOf(2), "a.ts"), { type: "tool_use", id: idOf(1), name: "run", input: { path: "a.ts" } }),
      msg("user", result(idOf(2), "A2"), result(idOf(1), "ran")),
    ]
    const edits = dedupFileReads(history, { now: 1, memo: new DedupMemo() })
    expect(edits.map((e) => [e.messageId, e.block])).toEqual([["m2", 0]])
  })

  it("keeps a ranged read when no later whole copy or same range follows", () => {
    const history = conversation(idOf).slice(0, 5)
    const edits = dedupFileReads(history, { now: 1 })
    expect(edits.map((e) => e.messageId)).toEqual(["m0"])
  })
})

describe("dedup on a generated history", () => {
  it("leaves exactly one whole copy of each file read in full", () => {
    const history = generateHistory({ messages: 300, dialect: "xml", fileLines: 20 })
    const view = new ChangeLog(dedupFileReads(history, { now: 1 })).view(history)
    const copies = new Map<string, number>()
    const calls = new Map<string, Record<string, unknown>>()
    const names = new Map<string, string>()
    for (const m of view) {
      for (const b of m.content) {
        if (b.type === "tool_use") {
          calls.set(b.id, b.input as Record<string, unknown>)
          names.set(b.id, b.name)
        }
        if (b.type === "tool_result" && typeof b.content === "string" && !b.content.startsWith("[promptline")) {
          const input = calls.get(b.toolUseId)!
          if (names.get(b.toolUseId) === "read_file" && input.start_line === undefined) {
            copies.set(String(input.path), (copies.get(String(input.path)) ?? 0) + 1)
          }
        }
      }
    }
    expect(copies.size).toBeGreaterThan(3)
    for (const [path, count] of copies) expect(count, path).toBe(1)
  })
})

describe("dedup with a memo kept across turns", () => {
  it.each(["native", "xml"] as const)("makes the same edits turn by turn as dedup with no memo (%s)", (dialect) => {
    // Replayed as fit does it: each turn's view carries the edits of the turns before, so the memo
    // meets new blocks, replaced blocks and blocks it has scanned.
    const history = generateHistory({ messages: 240, dialect, fileLines: 12, seed: 3 })
    const log = new ChangeLog()
    const memo = new DedupMemo()
    let made = 0
    for (let k = 2; k <= history.length; k += 7) {
      const view = log.view(history.slice(0, k))
      const withMemo = dedupFileReads(view, { now: k, memo })
      expect(withMemo).toEqual(dedupFileReads(view, { now: k }))
      // Every other turn leaves the stale copies in place: the next turn finds them again in the memo.
      if (k % 2 === 0) log.add(withMemo)
      made += withMemo.length
    }
    expect(made).toBeGreaterThan(10)
  })
})

describe("replacements made ahead", () => {
  it("replaces a copy when a newer whole copy arrives, and dedup then edits with that same block", () => {
    const history = conversation((i) => `toolu_${i}`)
    const memo = new DedupMemo()
    // Up to the second read of a.ts: the mention in the first message is stale, nothing else is.
    memo.follow(history.slice(0, 3))
    const first = memo.takePrepared()
    expect(first.map((b) => (b.type === "text" ? b.text : ""))).toEqual([
      `Fix it.\n<file_content path="a.ts">${dedupNotice("a.ts")}</file_content>`,
    ])
    expect(memo.takePrepared()).toEqual([])
    // The ranged read makes nothing stale; the edit result does (the read before it); the last read too.
    memo.follow(history)
    const later = memo.takePrepared()
    expect(later).toHaveLength(2)
    const edits = dedupFileReads(history, { now: 1, memo })
    for (const block of [...first, ...later]) expect(edits.some((e) => e.content === block)).toBe(true)
  })
})

describe("dedup's walk kept across turns", () => {
  // Paths and texts chosen to meet every rule: ranged and whole reads, other tools, errors, results whose call
  // is gone, mentions and final contents side by side, Cline-style reads, and contents and paths holding
  // element tags (a replacement may then hold other copies than the block it replaced).
  const path = fc.constantFrom(
    "a.ts",
    "b.ts",
    "c<d.ts",
    "it's.ts",
    '<file_content path="b.ts">q</file_content>',
    "x</final_file_content>y.ts",
  )
  const element = fc
    .tuple(
      fc.constantFrom("file_content", "final_file_content"),
      path,
      fc.constantFrom("X", "Y\n", '<file_content path="b.ts">Z</file_content>', '<final_file_content path="a.ts">W'),
    )
    .map(([tag, p, inner]) => `<${tag} path="${p}">${inner}</${tag}>`)
  const text = fc.oneof(
    fc.array(fc.oneof(element, fc.constantFrom("note ", "\n")), { maxLength: 4 }).map((parts) => parts.join("")),
    path.map((p) => `[read_file for '${p}'] Result:\nbody`),
  )
  type Turn = {
    kind: "read" | "other" | "text"
    path: string
    ranged: boolean
    error: boolean
    orphan: boolean
    text: string
  }
  const turn: fc.Arbitrary<Turn> = fc.record({
    kind: fc.constantFrom("read", "read", "other", "text"),
    path,
    ranged: fc.boolean(),
    error: fc.boolean(),
    orphan: fc.boolean(),
    text,
  })
  function conversationOf(turns: readonly Turn[]): Message[] {
    const out: Message[] = [{ id: "t0", role: "user", ts: 0, content: [{ type: "text", text: "task" }] }]
    turns.forEach((t, i) => {
      const id = `c${i}`
      const input = { path: t.path, ...(t.ranged ? { start_line: 1, end_line: 3 } : {}) }
      const call: Block =
        t.kind === "text"
          ? { type: "text", text: t.text }
          : { type: "tool_use", id, name: t.kind === "read" ? "read_file" : "write_to_file", input }
      out.push({ id: `a${i}`, role: "assistant", ts: 2 * i + 1, content: [call] })
      const answer: Block =
        t.kind === "text"
          ? { type: "text", text: t.text }
          : {
              type: "tool_result",
              toolUseId: t.orphan ? `gone${i}` : id,
              content: t.text,
              ...(t.error ? { isError: true } : {}),
            }
      out.push({ id: `u${i}`, role: "user", ts: 2 * i + 2, content: [answer] })
    })
    return out
  }

  it("makes the same edits as a walk from scratch, whatever edits and cuts came between (property)", () => {
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 1, maxLength: 24 }),
        fc.array(fc.record({ grow: fc.integer({ min: 0, max: 6 }), keep: fc.boolean(), cut: fc.boolean() }), {
          maxLength: 10,
        }),
        (turns, steps) => {
          const history = conversationOf(turns)
          const log = new ChangeLog()
          const memo = new DedupMemo()
          let length = 1
          let now = 1
          for (const step of steps) {
            length = Math.min(history.length, length + step.grow)
            const view = log.view(history.slice(0, length))
            const withMemo = dedupFileReads(view, { now, memo })
            expect(withMemo).toEqual(dedupFileReads(view, { now }))
            // What the walk kept (the copies found, and which are the notice already) is what a new walk finds.
            const fresh = new DedupMemo()
            dedupFileReads(view, { now, memo: fresh })
            const kept = memo.follow(view)
            const found = fresh.follow(view)
            expect(kept.map(({ replaced: _, ...o }) => o)).toEqual(found.map(({ replaced: _, ...o }) => o))
            kept.forEach((o, i) => {
              if (o.replaced !== undefined && found[i]!.replaced !== undefined)
                expect(o.replaced).toBe(found[i]!.replaced)
            })
            if (step.keep) log.add(withMemo)
            const cut = step.cut ? plannedCut(log.view(history.slice(0, length)), "half") : undefined
            if (cut) log.add(cutEdits(log.view(history.slice(0, length)), cut, now))
            now++
          }
        },
      ),
      { numRuns: 300 },
    )
  })
})
