import { appendFile, mkdtemp, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Message } from "../history/message.js"
import { Session, sessionsDir } from "./session.js"

const message = (n: number): Message => ({
  id: `m${n}`,
  role: n % 2 ? "assistant" : "user",
  ts: n,
  content: [{ type: "text", text: `message ${n}` }],
})

async function fresh(): Promise<{ cwd: string; session: Session }> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-session-"))
  const session = await Session.create(cwd, { id: "s1", created: 1, cwd, model: "m", provider: "p", task: "t" })
  return { cwd, session }
}

describe("Session", () => {
  it("appends messages in order and resumes them with the change log and meta", async () => {
    const { cwd, session } = await fresh()
    await Promise.all([0, 1, 2].map((n) => session.appendMessage(message(n))))
    await session.update({ status: "interrupted", date: "2026-11-29" })
    const resumed = await Session.resume(cwd, "s1")
    expect(resumed.history.map((m) => m.id)).toEqual(["m0", "m1", "m2"])
    expect(resumed.session.meta).toMatchObject({ status: "interrupted", date: "2026-11-29", task: "t" })
    expect(resumed.diagnostics).toEqual([])
  })

  it("skips a line torn by a crash, and the next append starts on a line of its own", async () => {
    const { cwd, session } = await fresh()
    await session.appendMessage(message(0))
    await session.appendMessage(message(1))
    const file = join(sessionsDir(cwd), "s1", "history.jsonl")
    await appendFile(file, '{"id":"m2","role":"us')
    const first = await Session.resume(cwd, "s1")
    expect(first.history.map((m) => m.id)).toEqual(["m0", "m1"])
    expect(first.diagnostics).toContainEqual(expect.objectContaining({ code: "session-line-skipped", line: 3 }))
    await first.session.appendMessage(message(3))
    const second = await Session.resume(cwd, "s1")
    expect(second.history.map((m) => m.id)).toEqual(["m0", "m1", "m3"])
    expect(second.diagnostics).toEqual([])
    expect((await readFile(file, "utf8")).endsWith("\n")).toBe(true)
  })

  it("names a missing session and refuses an id that is a path", async () => {
    const { cwd } = await fresh()
    await expect(Session.resume(cwd, "nope")).rejects.toMatchObject({ code: "session-not-found" })
    await expect(Session.resume(cwd, "../s1")).rejects.toMatchObject({ code: "session-id-invalid" })
  })
})
