import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import { SOUND_EDITS, UNSOUND_EDITS } from "../../test/fixtures/history/unsound-edits.js"
import { runCli } from "./test-helpers/run.js"

const fixtures = join(dirname(fileURLToPath(import.meta.url)), "../../test/fixtures/history")
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-fit-"))
  await writeFile(join(dir, "long.json"), JSON.stringify(generateHistory({ messages: 401 })))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("promptline fit", () => {
  it("rejects a bad option value as an option error, naming the flag and the value, not the history", async () => {
    const history = join(fixtures, "small-history.json")
    const bad = await runCli(["fit", "--history", history, "--model", "claude-sonnet-4-5", "--reserve", "x"])
    expect(bad).toEqual({
      code: 1,
      stdout: "",
      stderr: 'promptline: --reserve must be a number of 0 or more (got "x")\n',
    })
    const now = await runCli(["fit", "--history", history, "--model", "claude-sonnet-4-5", "--now", "later"])
    expect(now.stderr).toBe('promptline: --now must be a number (got "later")\n')
  })

  it("fits a provider's request body, counting its system prompt and tools; --from names the format", async () => {
    const body = {
      model: "claude-sonnet-4-5",
      max_tokens: 1024,
      system: "You are terse. ".repeat(200),
      tools: [{ name: "lookup", description: "Looks a word up.", input_schema: { type: "object", properties: {} } }],
      messages: [
        { role: "user", content: "hi" },
        { role: "assistant", content: "hello" },
      ],
    }
    const file = join(dir, "anthropic-body.json")
    await writeFile(file, JSON.stringify(body))
    const r = await runCli(["fit", "--history", file, "--model", "claude-sonnet-4-5", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout) as { tokens: { system: number; tools: number }; messages: { id: string }[] }
    expect(out.tokens.system).toBeGreaterThan(500)
    expect(out.tokens.tools).toBeGreaterThan(0)
    expect(out.messages.map((m) => m.id)).toEqual(["m1", "m2"])
    const wrong = await runCli(["fit", "--history", file, "--model", "claude-sonnet-4-5", "--from", "gemini"])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(/anthropic-body\.json: read as gemini \(named with --from\): .*contents/)
  })

  it("prints tokens, budget and edits for a history that fits", async () => {
    const r = await runCli(["fit", "--history", join(fixtures, "small-history.json"), "--model", "claude-sonnet-4-5"])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      /model {6}claude-sonnet-4-5 \(claude-sonnet-4-5-20250929\), window 200,000, budget 160,000/,
    )
    expect(r.stdout).toMatch(/edits {6}none/)
    expect(r.stdout).toContain("9 in the history, 9 sent")
    expect(r.stdout).toMatch(/result {5}fits, [\d,]+ tokens to spare/)
    expect(r.stdout).not.toContain("sent:")
    const listed = await runCli([
      "fit",
      "--history",
      join(fixtures, "small-history.json"),
      "--model",
      "claude-sonnet-4-5",
      "--messages",
    ])
    expect(listed.stdout.split("\n").filter((l) => /^ {2}\S+ +(user|assistant) /.test(l))).toHaveLength(9)
  })

  it("summarizes a long truncated history in a few lines, with the tokens freed", async () => {
    const r = await runCli(["fit", "--history", join(dir, "long.json"), "--model", "gpt-4o"])
    expect(r.code).toBe(0)
    const lines = r.stdout.trimEnd().split("\n")
    expect(lines.length).toBeLessThan(15)
    expect(r.stdout).toMatch(/tokens {5}[\d,]+ before, [\d,]+ after \([\d,]+ freed\)/)
    expect(r.stdout).toMatch(/truncation: 1 range, hid [\d,]+ messages/)
    const json = JSON.parse(
      (await runCli(["fit", "--history", join(dir, "long.json"), "--model", "gpt-4o", "--json"])).stdout,
    )
    const sent = Number(/(\d+) sent/.exec(r.stdout)![1])
    expect(sent).toBe(json.messages.length)
  })

  it("exits 1 and says so when the result is still over the budget", async () => {
    const huge = "word ".repeat(200_000)
    const history = [
      { id: "u1", role: "user", ts: 1, content: [{ type: "text", text: huge }] },
      { id: "a1", role: "assistant", ts: 2, content: [{ type: "text", text: "ok" }] },
    ]
    const file = join(dir, "huge.json")
    await writeFile(file, JSON.stringify(history))
    const r = await runCli(["fit", "--history", file, "--model", "gpt-4o"])
    expect(r.code).toBe(1)
    expect(r.stdout).toMatch(/result {5}OVER the budget by [\d,]+ tokens/)
    const json = await runCli(["fit", "--history", file, "--model", "gpt-4o", "--json"])
    expect(json.code).toBe(1)
  })

  it("truncates a long history for a small model and explains it as JSON", async () => {
    const r = await runCli(["fit", "--history", join(dir, "long.json"), "--model", "gpt-4o", "--json"])
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout)
    expect(out.tokens.before).toBeGreaterThan(out.tokens.budget.effective)
    expect(out.tokens.after).toBeLessThanOrEqual(out.tokens.budget.effective)
    expect(out.edits.map((e: { kind: string }) => e.kind)).toContain("truncation")
    expect(out.messages[0].id).toBe("m0")
    expect(out.messages[1].id).toBe("m1")
  })

  it("continues and saves a change log", async () => {
    const log = join(dir, "log.json")
    const first = await runCli([
      "fit",
      "--history",
      join(dir, "long.json"),
      "--model",
      "gpt-4o",
      "--change-log",
      log,
      "--save",
    ])
    expect(first.code).toBe(0)
    const saved = JSON.parse(await readFile(log, "utf8"))
    expect(saved.schema).toBe(1)
    expect(saved.edits.length).toBeGreaterThan(0)
    const again = await runCli([
      "fit",
      "--history",
      join(dir, "long.json"),
      "--model",
      "gpt-4o",
      "--change-log",
      log,
      "--json",
    ])
    expect(JSON.parse(again.stdout).edits).toEqual([])
  })

  it("refuses a change log that does not fit the history (exit 1, each unsound edit named), as run --resume does", async () => {
    const history = join(fixtures, "small-history.json")
    const log = join(dir, "unsound.json")
    for (const { edit, why } of UNSOUND_EDITS) {
      await writeFile(log, JSON.stringify({ schema: 1, edits: [edit] }))
      const r = await runCli(["fit", "--history", history, "--model", "gpt-4o", "--change-log", log])
      expect({ code: r.code, stdout: r.stdout }, JSON.stringify(edit)).toEqual({ code: 1, stdout: "" })
      expect(r.stderr).toContain("unsound.json: the change log does not fit this history: edit 1")
      expect(r.stderr).toContain(why)
    }
    await writeFile(log, JSON.stringify({ schema: 1, edits: SOUND_EDITS }))
    const fine = await runCli(["fit", "--history", history, "--model", "gpt-4o", "--change-log", log, "--json"])
    expect(fine.code).toBe(0)
    expect(JSON.parse(fine.stdout).messages.map((m: { id: string }) => m.id)).toEqual(["m0", "m1", "m6", "m7", "m8"])
  })

  it("warns about an unknown model and reports a bad history with its line", async () => {
    const r = await runCli(["fit", "--history", join(fixtures, "small-history.json"), "--model", "acme-9"])
    expect(r.stderr).toContain("model-unknown")
    await writeFile(join(dir, "bad.json"), '[\n  { "id": "a", "role": "robot", "ts": 1, "content": [] }\n]')
    const bad = await runCli(["fit", "--history", join(dir, "bad.json"), "--model", "gpt-4o"])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/bad\.json: invalid history/)
    expect(bad.stderr).toContain("[0].role")
    await writeFile(join(dir, "broken.json"), "[\n{")
    const broken = await runCli(["fit", "--history", join(dir, "broken.json"), "--model", "gpt-4o"])
    expect(broken.stderr).toMatch(/broken\.json:2/)
  })
})
