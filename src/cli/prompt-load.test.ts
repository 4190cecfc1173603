import { spawnSync } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"

/**
 * What `promptline prompt --no-mcp` loads in a real process (docs/decisions.md, "Lazy loading: an import runs
 * nothing heavy"): the command validates a config file only when there is one, so without one it loads no zod.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), "../..")

/** Records every file the process loads (ES modules through a load hook, CommonJS from the require cache). */
const RECORDER = `data:text/javascript,${encodeURIComponent(`
import { appendFileSync } from "node:fs"
import { createRequire, register } from "node:module"
const log = process.env.PROMPTLINE_TEST_LOAD_LOG
register("data:text/javascript," + encodeURIComponent(
  'import { appendFileSync } from "node:fs"; export async function load(url, context, next) { appendFileSync(process.env.PROMPTLINE_TEST_LOAD_LOG, url + "\\\\n"); return next(url, context) }'))
process.on("exit", () => appendFileSync(log, Object.keys(createRequire(process.cwd() + "/x.js").cache).join("\\n") + "\\n"))
`)}`

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-prompt-load-"))
  await writeFile(join(dir, "AGENTS.md"), "# Rules\n\n- Use pnpm.\n")
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The packages under node_modules whose files the command loaded. */
async function packagesLoaded(args: string[]): Promise<Set<string>> {
  const log = join(dir, "loaded.log")
  await writeFile(log, "")
  const main = JSON.stringify(join(root, "src/cli/main.ts"))
  const out = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--import",
      RECORDER,
      "--input-type=module",
      "-e",
      `const { main } = await import(${main}); process.exitCode = await main(${JSON.stringify(args)})`,
    ],
    { cwd: root, encoding: "utf8", env: { ...process.env, HOME: dir, PROMPTLINE_TEST_LOAD_LOG: log } },
  )
  expect(out.stderr).toBe("")
  expect(out.status).toBe(0)
  const packages = new Set<string>()
  for (const line of (await readFile(log, "utf8")).split("\n")) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(line)
    if (match) packages.add(match[1]!)
  }
  return packages
}

describe("what the prompt command loads", () => {
  it("loads no zod when there is no config file, and the recorder sees packages (the check can fail)", async () => {
    const loaded = await packagesLoaded(["prompt", "--no-mcp", "--cwd", dir])
    expect(loaded.has("commander")).toBe(true)
    expect(loaded.has("liquidjs")).toBe(true)
    expect([...loaded].filter((p) => p === "zod" || p === "yaml" || p === "gpt-tokenizer")).toEqual([])
  }, 60_000)
})
