import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
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
  "usage",
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

  it("says what each value of a choice means, one value a line", async () => {
    const explained: [string, string][] = [
      ["fit", "--strategy"],
      ["run", "--approve"],
      ["run", "--compaction"],
      ["prompt", "--placement"],
      ["usage", "--by"],
    ]
    for (const [command, flag] of explained) {
      const help = (await runCli([command, "--help"], { columns: 100 })).stdout
      const start = help.indexOf(`  ${flag} `)
      const rest = help.slice(start + 1)
      const block = rest.slice(0, rest.search(/\n {2}-/))
      const choices = [...(/\(choices: ([^)]*)/.exec(block.replace(/\s+/g, " "))?.[1] ?? "").matchAll(/"([^"]+)"/g)]
      expect(choices.length, `${command} ${flag}`).toBeGreaterThan(1)
      for (const [, choice] of choices)
        expect(block, `${command} ${flag} ${choice}`).toMatch(new RegExp(`\\n +${choice}: \\S`))
    }
    // The strategy named none is the one that cuts the most: the help says so.
    expect((await runCli(["fit", "--help"])).stdout.replace(/\s+/g, " ")).toContain(
      'none: keeps none of them, the most any strategy cuts (it does not mean "no truncation")',
    )
  })

  it("says in plain words when a folder or file it is given is not there, whatever the command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pl-missing-"))
    const missing = join(dir, "nope")
    const file = join(dir, "a-file")
    writeFileSync(file, "text\n")
    try {
      for (const command of ["prompt", "context", "inspect", "doctor", "run"]) {
        const task = command === "run" ? ["--no-mcp", "a task"] : []
        for (const [cwd, why] of [
          [missing, "it does not exist"],
          [file, "it is a file, not a folder"],
        ] as const) {
          const r = await runCli([command, "--cwd", cwd, ...task], { cwd: dir })
          expect(r.code, `${command} ${cwd}`).toBe(1)
          expect(r.stderr, `${command} ${cwd}`).toContain(`${cwd}: cannot gather this folder: ${why}`)
        }
      }
      const inputs: [string[], string][] = [
        [["traces", missing], `${missing}: no such folder; record requests with`],
        [["usage", missing], `${missing}: no such folder; record requests with`],
        [["inspect", "--trace", missing], `${missing}: cannot read the trace: it does not exist`],
        [["fit", "--history", missing, "--model", "gpt-5"], "cannot read the history: it does not exist"],
        [["decode", "--format", "anthropic", missing], "cannot read the recording: it does not exist"],
      ]
      for (const [argv, says] of inputs) {
        const r = await runCli(argv, { cwd: dir })
        expect(r.code, argv.join(" ")).toBe(1)
        expect(r.stderr, argv.join(" ")).toContain(says)
        expect(r.stderr, argv.join(" ")).not.toMatch(/\bE[A-Z]{3,}\b/)
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("offers options only where they do something", async () => {
    const help = (await runCli(["variants", "--help"])).stdout
    for (const flag of ["--variant", "--tool-calling", "--placement", "--trust", "--no-mcp"])
      expect(help).not.toContain(flag)
    expect(help).toContain("--model")
  })
})
