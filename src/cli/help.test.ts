import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { runCli } from "./test-helpers/run.js"

const version = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version
const COMMANDS = [
  "prompt",
  "context",
  "variants",
  "run",
  "doctor",
  "inspect",
  "traces",
  "diff",
  "request",
  "decode",
  "fit",
  "compact",
]

describe("the CLI's manners", () => {
  it("prints its version with --version and -V", async () => {
    for (const flag of ["--version", "-V"]) {
      const r = await runCli([flag])
      expect(r).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" })
    }
  })

  it("shows defaults as a user reads them: no quotes around numbers, no empty lists", async () => {
    for (const command of COMMANDS) {
      const help = (await runCli([command, "--help"])).stdout
      expect(help, command).not.toMatch(/default: \[\]/)
      expect(help, command).not.toMatch(/default: "\d+"/)
    }
    expect((await runCli(["run", "--help"])).stdout).toMatch(
      /--max-turns <n> +stop after this many model turns \(default: 40\)/,
    )
    expect((await runCli(["run", "--help"])).stdout.replace(/\s+/g, " ")).toContain(
      "(default: ask at a terminal, reads without one, all with --replay)",
    )
  })

  it("offers options only where they do something", async () => {
    const help = (await runCli(["variants", "--help"])).stdout
    for (const flag of ["--variant", "--tool-calling", "--placement", "--trust", "--no-mcp"])
      expect(help).not.toContain(flag)
    expect(help).toContain("--model")
  })
})
