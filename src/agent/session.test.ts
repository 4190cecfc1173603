import { execFileSync } from "node:child_process"
import { appendFile, mkdir, mkdtemp, readdir, readFile, realpath, rename, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { describe, expect, it } from "vitest"
import { promptlineStateDir } from "../context/user-roots.js"
import type { Message } from "../history/message.js"
import { readSessionMeta, Session, type SessionPlace, sessionsDir } from "./session.js"

const message = (n: number): Message => ({
  id: `m${n}`,
  role: n % 2 ? "assistant" : "user",
  ts: n,
  content: [{ type: "text", text: `message ${n}` }],
})

/** A workspace with session s1, kept in the state folder of a temporary home. */
async function fresh(): Promise<{ cwd: string; session: Session; place: SessionPlace & { home: string } }> {
  const cwd = await mkdtemp(join(tmpdir(), "pl-session-"))
  const place = { home: await mkdtemp(join(tmpdir(), "pl-session-home-")), env: {} }
  const meta = { id: "s1", created: 1, cwd, model: "m", provider: "p", task: "t" }
  const session = await Session.create(cwd, meta, place)
  return { cwd, session, place }
}

describe("Session", () => {
  it("appends messages in order and resumes them with the change log and meta", async () => {
    const { cwd, session, place } = await fresh()
    await Promise.all([0, 1, 2].map((n) => session.appendMessage(message(n))))
    await session.update({ status: "interrupted", date: "2026-11-29" })
    const resumed = await Session.resume(cwd, "s1", place)
    expect(resumed.history.map((m) => m.id)).toEqual(["m0", "m1", "m2"])
    expect(resumed.session.meta).toMatchObject({ status: "interrupted", date: "2026-11-29", task: "t" })
    expect(resumed.diagnostics).toEqual([])
  })

  it("skips a line torn by a crash, and the next append starts on a line of its own", async () => {
    const { cwd, session, place } = await fresh()
    await session.appendMessage(message(0))
    await session.appendMessage(message(1))
    const file = join(sessionsDir(cwd, place), "s1", "history.jsonl")
    await appendFile(file, '{"id":"m2","role":"us')
    const first = await Session.resume(cwd, "s1", place)
    expect(first.history.map((m) => m.id)).toEqual(["m0", "m1"])
    expect(first.diagnostics).toContainEqual(expect.objectContaining({ code: "session-line-skipped", line: 3 }))
    await first.session.appendMessage(message(3))
    const second = await Session.resume(cwd, "s1", place)
    expect(second.history.map((m) => m.id)).toEqual(["m0", "m1", "m3"])
    expect(second.diagnostics).toEqual([])
    expect((await readFile(file, "utf8")).endsWith("\n")).toBe(true)
  })

  it("names a missing session and refuses an id that is a path", async () => {
    const { cwd, place } = await fresh()
    await expect(Session.resume(cwd, "nope", place)).rejects.toMatchObject({ code: "session-not-found" })
    await expect(Session.resume(cwd, "../s1", place)).rejects.toMatchObject({ code: "session-id-invalid" })
  })

  it("skips history lines that are JSON but not messages, each with a warning naming the file and line", async () => {
    const { cwd, session, place } = await fresh()
    const file = join(sessionsDir(cwd, place), "s1", "history.jsonl")
    await session.appendMessage(message(0))
    const bad = [
      "null",
      "42",
      '"text"',
      JSON.stringify({ id: "x1", role: "user", content: "a string, not blocks", ts: 1 }),
      JSON.stringify({ id: "x2", role: "user", content: [{ type: "video", url: "v" }], ts: 1 }),
      JSON.stringify(message(0)),
    ]
    await appendFile(file, `${bad.join("\n")}\n`)
    await session.appendMessage(message(1))
    const resumed = await Session.resume(cwd, "s1", place)
    expect(resumed.history.map((m) => m.id)).toEqual(["m0", "m1"])
    const skipped = resumed.diagnostics.filter((d) => d.code === "session-line-skipped")
    expect(skipped.map((d) => d.line)).toEqual([2, 3, 4, 5, 6, undefined])
    expect(skipped.every((d) => d.path === file && d.level === "warning")).toBe(true)
    expect(skipped[3]!.message).toMatch(/content/)
  })

  it("a skipped call leaves no orphaned result: what lost its partner becomes text", async () => {
    const { cwd, session, place } = await fresh()
    const file = join(sessionsDir(cwd, place), "s1", "history.jsonl")
    await session.appendMessage(message(0))
    await appendFile(
      file,
      `${JSON.stringify({ id: "a1", role: "assistant", content: [{ type: "tool_use" }], ts: 2 })}\n`,
    )
    await session.appendMessage({
      id: "u2",
      role: "user",
      ts: 3,
      content: [{ type: "tool_result", toolUseId: "call-1", content: "ok" }],
    })
    const resumed = await Session.resume(cwd, "s1", place)
    expect(resumed.history.map((m) => m.id)).toEqual(["m0", "u2"])
    expect(resumed.history[1]!.content[0]).toMatchObject({ type: "text" })
  })

  it("files.json of the wrong shape is left out entry by entry, with warnings", async () => {
    const { cwd, place } = await fresh()
    const path = join(sessionsDir(cwd, place), "s1", "files.json")
    const good = { path: "a.txt", hash: "", mtime: 0, size: 0, via: "read", at: 1 }
    await writeFile(path, JSON.stringify([null, { path: 1 }, good]))
    const some = await Session.resume(cwd, "s1", place)
    expect(some.files).toEqual([good])
    expect(some.diagnostics.filter((d) => d.code === "seen-files-invalid")).toHaveLength(2)
    for (const text of ['{"a.txt": 1}', "[1, 2", ""]) {
      await writeFile(path, text)
      const none = await Session.resume(cwd, "s1", place)
      expect(none.files).toEqual([])
      expect(none.diagnostics).toContainEqual(expect.objectContaining({ code: "seen-files-invalid", path }))
    }
  })

  it("a damaged change log is rebuilt (started empty) with a warning saying so", async () => {
    const { cwd, session, place } = await fresh()
    for (const n of [0, 1, 2, 3, 4]) await session.appendMessage(message(n))
    const path = join(sessionsDir(cwd, place), "s1", "change-log.json")
    for (const text of ["{ not json", '{"schema": 1, "edits": 3}', '{"schema": 7}', "[]"]) {
      await writeFile(path, text)
      const resumed = await Session.resume(cwd, "s1", place)
      expect(resumed.changeLog.edits).toEqual([])
      expect(resumed.diagnostics).toContainEqual(
        expect.objectContaining({ level: "warning", code: "change-log-rebuilt", path }),
      )
    }
  })

  it("a change log that does not fit the history is rejected and rebuilt", async () => {
    const { cwd, session, place } = await fresh()
    await session.appendMessage(message(0))
    await session.appendMessage({
      id: "a1",
      role: "assistant",
      ts: 1,
      content: [{ type: "tool_use", id: "c1", name: "read_file", input: {} }],
    })
    await session.appendMessage({
      id: "u2",
      role: "user",
      ts: 2,
      content: [{ type: "tool_result", toolUseId: "c1", content: "x" }],
    })
    for (const n of [3, 4, 5]) await session.appendMessage(message(n))
    const path = join(sessionsDir(cwd, place), "s1", "change-log.json")
    const wrong = [
      { kind: "truncation", ts: 1, from: "m0", to: "m3" },
      { kind: "truncation", ts: 1, from: "a1", to: "m3" },
      { kind: "dedup", ts: 1, messageId: "u2", block: 0, content: { type: "text", text: "gone" } },
      {
        kind: "dedup",
        ts: 1,
        messageId: "u2",
        block: 0,
        content: { type: "tool_result", toolUseId: "c9", content: "" },
      },
      { kind: "dedup", ts: 1, messageId: "m3", block: 4, content: { type: "text", text: "x" } },
      { kind: "notice", ts: 1, messageId: "nobody", text: "x" },
      { kind: "truncation", ts: 1, from: "m4", to: "m3" },
    ]
    for (const edit of wrong) {
      await writeFile(path, JSON.stringify({ schema: 1, edits: [edit] }))
      const resumed = await Session.resume(cwd, "s1", place)
      expect(resumed.changeLog.edits, JSON.stringify(edit)).toEqual([])
      expect(resumed.diagnostics).toContainEqual(expect.objectContaining({ code: "change-log-rebuilt" }))
    }
    const fine = { kind: "truncation", ts: 1, from: "u2", to: "m3" }
    await writeFile(path, JSON.stringify({ schema: 1, edits: [fine] }))
    const kept = await Session.resume(cwd, "s1", place)
    expect(kept.changeLog.edits).toEqual([fine])
    expect(kept.diagnostics).toEqual([])
  })

  it("removes temporary files left by a save that was killed before its rename", async () => {
    const { cwd, place } = await fresh()
    const dir = join(sessionsDir(cwd, place), "s1")
    await writeFile(join(dir, ".change-log.json.0a1b2c3d.tmp"), "{")
    await writeFile(join(dir, ".session.json.deadbeef.tmp"), "{")
    const resumed = await Session.resume(cwd, "s1", place)
    expect((await readdir(dir)).filter((n) => n.endsWith(".tmp"))).toEqual([])
    expect(resumed.diagnostics.filter((d) => d.code === "session-temp-removed")).toHaveLength(2)
  })

  it("keeps the calibration per model; a damaged one is dropped, not the session; reading the meta changes nothing", async () => {
    const { cwd, session, place } = await fresh()
    await session.update({ calibration: { m: { ratio: 1.08, samples: 4 } } })
    expect((await readSessionMeta(cwd, "s1", place)).calibration).toEqual({ m: { ratio: 1.08, samples: 4 } })
    const dir = join(sessionsDir(cwd, place), "s1")
    const file = join(dir, "session.json")
    const meta = JSON.parse(await readFile(file, "utf8"))
    await writeFile(file, JSON.stringify({ ...meta, calibration: { m: { ratio: -1, samples: "four" } } }))
    await writeFile(join(dir, ".session.json.deadbeef.tmp"), "{")
    const read = await readSessionMeta(cwd, "s1", place)
    expect(read.calibration).toBeUndefined()
    expect(read).toMatchObject({ id: "s1", model: "m", task: "t" })
    expect((await readdir(dir)).filter((n) => n.endsWith(".tmp"))).toHaveLength(1)
    expect((await Session.resume(cwd, "s1", place)).session.meta.calibration).toBeUndefined()
  })
})

describe("where sessions are kept", () => {
  it("in the user's state folder by workspace (a readable name and a hash of the real path), nothing in the workspace", async () => {
    const { cwd, session, place } = await fresh()
    await session.appendMessage(message(0))
    await session.appendEvent({ type: "turn_start", turn: 1 } as never)
    expect(await readdir(cwd)).toEqual([])
    const real = await realpath(cwd)
    expect(session.dir).toMatch(
      new RegExp(
        `^${join(place.home, ".local", "state", "promptline", "sessions")}/${basename(real)}-[0-9a-f]{16}/s1$`,
      ),
    )
    // XDG_STATE_HOME wins; a link to the workspace finds the same sessions; another folder of the same name does not.
    const xdg = await mkdtemp(join(tmpdir(), "pl-xdg-"))
    expect(sessionsDir(cwd, { env: { XDG_STATE_HOME: xdg } })).toMatch(new RegExp(`^${xdg}/promptline/sessions/`))
    const link = join(await mkdtemp(join(tmpdir(), "pl-link-")), "ws")
    await symlink(cwd, link)
    expect(sessionsDir(link, place)).toBe(sessionsDir(cwd, place))
    expect((await Session.resume(link, "s1", place)).history.map((m) => m.id)).toEqual(["m0"])
    const twin = join(await mkdtemp(join(tmpdir(), "pl-twin-")), basename(real))
    await mkdir(twin)
    expect(sessionsDir(twin, place)).not.toBe(sessionsDir(cwd, place))
    await expect(Session.resume(twin, "s1", place)).rejects.toMatchObject({ code: "session-not-found" })
  })

  it("follows each platform's convention for the state folder", () => {
    expect(promptlineStateDir("/h", {}, "linux")).toBe("/h/.local/state/promptline")
    expect(promptlineStateDir("/h", { XDG_STATE_HOME: "/x" }, "linux")).toBe("/x/promptline")
    expect(promptlineStateDir("/h", { XDG_STATE_HOME: "relative" }, "linux")).toBe("/h/.local/state/promptline")
    expect(promptlineStateDir("/h", {}, "darwin")).toBe("/h/Library/Application Support/promptline")
    expect(promptlineStateDir("/h", { LOCALAPPDATA: "/L" }, "win32")).toBe(join("/L", "promptline", "State"))
  })

  it("a session an older promptline kept in the workspace is found, moved out with a notice, and the folder tidied", async () => {
    const { cwd, session, place } = await fresh()
    await session.appendMessage(message(0))
    const legacy = join(cwd, ".promptline", "sessions", "s1")
    await mkdir(join(cwd, ".promptline", "sessions"), { recursive: true })
    await rename(session.dir, legacy)
    // Reading the meta (inspect --session) finds it where it is and moves nothing.
    expect((await readSessionMeta(cwd, "s1", place)).task).toBe("t")
    expect(await readdir(join(cwd, ".promptline", "sessions"))).toEqual(["s1"])
    const resumed = await Session.resume(cwd, "s1", place)
    expect(resumed.history.map((m) => m.id)).toEqual(["m0"])
    expect(resumed.session.dir).toBe(join(sessionsDir(cwd, place), "s1"))
    expect(resumed.diagnostics).toEqual([
      expect.objectContaining({ level: "info", code: "session-moved", path: resumed.session.dir }),
    ])
    expect(await readdir(cwd)).toEqual([])
    // Other files of the workspace's .promptline folder (its skills, its MCP config) stay, and so does the folder.
    const other = await fresh()
    await mkdir(join(other.cwd, ".promptline", "sessions"), { recursive: true })
    await writeFile(join(other.cwd, ".promptline", "mcp.json"), "{}")
    await rename(other.session.dir, join(other.cwd, ".promptline", "sessions", "s1"))
    await Session.resume(other.cwd, "s1", other.place)
    expect(await readdir(join(other.cwd, ".promptline"))).toEqual(["mcp.json"])
  })

  it("a session.json with bad fields names each field in one line", async () => {
    const { cwd, session, place } = await fresh()
    const file = join(session.dir, "session.json")
    const meta = JSON.parse(await readFile(file, "utf8")) as Record<string, unknown>
    await writeFile(file, JSON.stringify({ ...meta, created: "yesterday", instructionsGiven: ["a", 2] }))
    const error = await Session.resume(cwd, "s1", place).then(
      () => undefined,
      (e: unknown) => e as Error,
    )
    expect(error).toMatchObject({ code: "session-invalid" })
    expect(error!.message).toBe(
      `${file}: created: Invalid input: expected number, received string; ` +
        "instructionsGiven[1]: Invalid input: expected string, received number",
    )
  })

  it("a session file that is a folder, a link or a FIFO is named in a session-invalid error (no stack trace)", async () => {
    for (const name of ["history.jsonl", "session.json", "events.jsonl", "change-log.json", "files.json"]) {
      for (const kind of ["folder", "link", "fifo"] as const) {
        const { cwd, session, place } = await fresh()
        const path = join(session.dir, name)
        await writeFile(path, "").catch(() => undefined)
        await rename(path, `${path}.old`).catch(() => undefined)
        if (kind === "folder") await mkdir(path)
        else if (kind === "link") await symlink(`${path}.old`, path)
        else execFileSync("mkfifo", [path])
        const label = `${name} as a ${kind}`
        const error = await Session.resume(cwd, "s1", place).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error, label).toMatchObject({ code: "session-invalid" })
        expect((error as Error).message, label).toContain(path)
      }
    }
  })
})
