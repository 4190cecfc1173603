import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { generateHistory } from "../../test/fixtures/history/generate.js"
import { runCli } from "./test-helpers/run.js"

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-compact-"))
  const history = generateHistory({ messages: 401 })
  // A second request from the user, late in the session.
  history[380]!.content.push({ type: "text", text: "Now also update the changelog." })
  await writeFile(join(dir, "long.json"), JSON.stringify(history))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("promptline compact", () => {
  it("shows what masking and the summary would do, and what is kept verbatim", async () => {
    const r = await runCli(["compact", "--history", join(dir, "long.json"), "--model", "gpt-4o"])
    expect(r.stderr).toBe("")
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/window 128,000, budget 98,000, staged compaction above 49,000 \(50%\)/)
    expect(r.stdout).toMatch(/over the threshold, the stages below would run/)
    expect(r.stdout).toMatch(
      /stage 1 {4}mask: [\d,]+ old tool results become one-line stubs \(the last 3 turns keep theirs\)/,
    )
    expect(r.stdout).toMatch(/stage 2 {4}summary: (due|not needed) after masking; would condense [\d,]+ messages/)
    expect(r.stdout).toMatch(/summarizing request: [\d,]+ tokens, fits the budget/)
    expect(r.stdout).toContain('latest request "Now also update the changelog."')
  })

  it("shows its defaults as a user reads them", async () => {
    const help = (await runCli(["compact", "--help"])).stdout.replace(/\s+/g, " ")
    expect(help).not.toMatch(/default: "\d/)
    expect(help).toContain("--threshold <fraction> compaction starts above this share of the budget (default: 0.5)")
  })

  it("prints JSON whose stages shrink the history, and refuses bad numbers naming the flag", async () => {
    const r = await runCli([
      "compact",
      "--history",
      join(dir, "long.json"),
      "--model",
      "gpt-4o",
      "--json",
      "--keep-turns",
      "2",
    ])
    const out = JSON.parse(r.stdout)
    expect(out.triggered).toBe(true)
    expect(out.mask.results).toBeGreaterThan(10)
    expect(out.mask.tokensAfter).toBeLessThan(out.tokens)
    expect(out.summary.condensed).toBeGreaterThan(100)
    expect(out.verbatim.latestRequest).toBe("Now also update the changelog.")
    const bad = await runCli(["compact", "--history", join(dir, "long.json"), "--model", "gpt-4o", "--threshold", "2"])
    expect(bad).toEqual({
      code: 1,
      stdout: "",
      stderr: 'promptline: --threshold must be a number from 0 to 1 (got "2")\n',
    })
  })
})
