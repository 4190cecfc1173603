import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { FileError, ValidationError } from "../errors.js"
import { compilePattern, loadReplayScript, parseReplayScript, scriptWorkspace } from "./script.js"

describe("replay script", () => {
  it("accepts a full turn and fills fault defaults", () => {
    const script = parseReplayScript({
      version: 1,
      task: "Fix it",
      turns: [
        {
          thinking: "hmm",
          text: "Looking.",
          toolCalls: [{ name: "read_file", input: { path: "a" }, id: "call_1" }],
          usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, reasoning: 1 },
          expect: { userText: "/fix/i", toolResults: [{ tool: "read_file", matches: "x" }], dialect: "xml" },
          faults: [{ kind: "rate-limit" }, { kind: "disconnect" }],
        },
      ],
    })
    expect(script.turns[0]!.faults).toEqual([{ kind: "rate-limit", retryAfter: 1 }, { kind: "disconnect" }])
  })

  it("reports every bad field by path, not only the first", () => {
    const bad = {
      version: 2,
      turns: [
        { text: "ok", toolCalls: [{ name: "read file", input: [] }] },
        {},
        { text: "x", usage: { input: -1 }, expect: { userText: "(unclosed", toolResults: [{ tol: "x" }] } },
        { text: "y", faults: [{ kind: "meltdown" }], stop: "tired" },
      ],
      extra: true,
    }
    try {
      parseReplayScript(bad, "task.json")
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationError)
      const paths = (e as ValidationError).issues.map((i) => i.path)
      expect(paths).toEqual(
        expect.arrayContaining([
          "version",
          "turns[0].toolCalls[0].name",
          "turns[0].toolCalls[0].input",
          "turns[1]",
          "turns[2].usage.input",
          "turns[2].expect.userText",
          "turns[2].expect.toolResults[0]",
          "turns[3].faults[0].kind",
          "turns[3].stop",
          "",
        ]),
      )
      expect((e as Error).message).toMatch(/^task\.json: invalid replay script/)
      expect((e as Error).message).toMatch(/turns\[2\]\.expect\.userText: not a valid regular expression/)
    }
  })

  it("reads patterns as sources or as /literals/ with flags", () => {
    expect(compilePattern("fail [1-9]").test("# fail 1")).toBe(true)
    expect(compilePattern("/PASS/i").test("# pass 5")).toBe(true)
    expect(compilePattern("PASS").test("# pass 5")).toBe(false)
    expect(compilePattern("a/b").test("a/b")).toBe(true)
  })

  it("loads a file, naming the line of a JSON error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "replay-script-"))
    const good = join(dir, "good.json")
    await writeFile(good, JSON.stringify({ version: 1, workspace: "repo", turns: [{ text: "hi" }] }))
    const script = await loadReplayScript(good)
    expect(scriptWorkspace(script, good)).toBe(join(dir, "repo"))
    const broken = join(dir, "broken.json")
    await writeFile(broken, '{\n  "version": 1,\n  "turns": [\n    { "text": "a", }\n  ]\n}\n')
    await expect(loadReplayScript(broken)).rejects.toMatchObject({ code: "replay-script-not-json", line: 4 })
    await expect(loadReplayScript(join(dir, "missing.json"))).rejects.toBeInstanceOf(FileError)
  })
})
