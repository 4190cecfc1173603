import { spawn } from "node:child_process"
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { rng } from "../../test/fixtures/history/generate.js"
import { ChangeLog } from "./change-log.js"
import type { Edit } from "./edits.js"

/**
 * Crash safety: a child process saves change logs in a loop and is killed (SIGKILL) at a random moment,
 * 200 times. Loading must always give the last acknowledged state or the next one, never a torn file.
 * The child runs our own change-log code, transpiled once into a folder under node_modules/.cache (so it
 * resolves zod and jsonc-parser) because starting a TypeScript loader 200 times would take minutes.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), "../..")
const work = join(root, `node_modules/.cache/promptline-crash-test-${process.pid}`)
/** change-log.ts and every module it imports (relative imports, followed), as paths from the repository root. */
async function sources(): Promise<string[]> {
  const found = new Set<string>()
  const visit = async (file: string): Promise<void> => {
    if (found.has(file)) return
    found.add(file)
    const code = await readFile(join(root, file), "utf8")
    // Value imports only: `import type` and `export type` lines bring nothing at run time.
    for (const m of code.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"(\.{1,2}\/[^"]+)\.js"/gm))
      await visit(join(dirname(file), `${m[1]}.ts`))
  }
  await visit("src/history/change-log.ts")
  return [...found]
}

/** The state number k: a few small edits plus one large one (about 80 kB), so a write takes a while. */
function stateEdits(k: number): Edit[] {
  const edits: Edit[] = Array.from({ length: k % 20 }, (_, i) => ({
    kind: "notice",
    ts: i,
    messageId: `m${i}`,
    text: `state ${k}`,
  }))
  edits.push({ kind: "compaction", ts: 1000 + k, from: "m2", to: "m3", summary: `state ${k} `.repeat(8_000) })
  return edits
}

const CHILD = `
import { ChangeLog } from "./src/history/change-log.js"
${stateEdits.toString()}
const [file, start] = process.argv.slice(2)
let k = Number(start)
process.stdout.write("ready\\n")
for (;;) {
  k++
  await new ChangeLog(stateEdits(k)).save(file)
  process.stdout.write(k + "\\n")
}
`

beforeAll(async () => {
  await rm(work, { recursive: true, force: true })
  for (const source of await sources()) {
    const code = await readFile(join(root, source), "utf8")
    const out = ts.transpileModule(code, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    }).outputText
    const target = join(work, source.replace(/\.ts$/, ".js"))
    await mkdir(dirname(target), { recursive: true })
    await writeFile(target, out)
  }
  await writeFile(join(work, "child.mjs"), CHILD)
})
afterAll(async () => {
  await rm(work, { recursive: true, force: true })
})

/**
 * Runs the child and kills it `delayMs` after its `acks`-th acknowledged write (0: once it is loaded). Counting
 * acknowledgements, not only time, keeps each trial moving the state on however loaded the machine is.
 */
function runUntilKilled(file: string, start: number, acks: number, delayMs: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(work, "child.mjs"), file, String(start)], {
      stdio: ["ignore", "pipe", "pipe"],
    })
    let out = ""
    let err = ""
    let timer: NodeJS.Timeout | undefined
    // The kill clock starts once the child is loaded and has acknowledged `acks` writes, so kills land among
    // the writes.
    child.stdout.on("data", (d) => {
      out += d
      const acknowledged = out.split("\n").filter((l) => /^\d+$/.test(l)).length
      if (acknowledged >= acks) timer ??= setTimeout(() => child.kill("SIGKILL"), delayMs)
    })
    child.stderr.on("data", (d) => {
      err += d
    })
    child.on("error", reject)
    // `close`, not `exit`: only then has all the child's output been read (an ack written just before the kill
    // may still sit in the pipe at `exit`).
    child.on("close", (_code, signal) => {
      clearTimeout(timer)
      if (signal !== "SIGKILL") reject(new Error(`child ended on its own: ${err}`))
      else
        resolve(
          out
            .split("\n")
            .filter((l) => /^\d+$/.test(l))
            .map(Number),
        )
    })
  })
}

describe("change log crash safety", () => {
  it("after 200 kills mid-write, loading gives the previous or the new state", { timeout: 300_000 }, async () => {
    // Four independent chains of 50 trials run side by side (each child spends most of its life loading).
    const chain = async (n: number) => {
      const file = join(work, `crash-${n}.json`)
      await new ChangeLog(stateEdits(0)).save(file)
      const random = rng(2026 + n)
      let state = 0
      let interrupted = 0
      let leftBehind = 0
      for (let trial = 0; trial < 50; trial++) {
        const acks = await runUntilKilled(file, state, Math.floor(random() * 3), Math.floor(random() * 40))
        const acked = acks.at(-1) ?? state
        const loaded = await ChangeLog.load(file)
        const k = (loaded.edits.at(-1)?.ts ?? 1000) - 1000
        expect([acked, acked + 1]).toContain(k)
        expect(loaded.edits).toEqual(stateEdits(k))
        if (k === acked) interrupted++
        // A kill between opening the temporary file and the rename leaves it behind (until the next save).
        if ((await readdir(work)).some((f) => f.startsWith(`.crash-${n}.json.`) && f.endsWith(".tmp"))) leftBehind++
        state = k
      }
      return { state, interrupted, leftBehind }
    }
    const results = await Promise.all([0, 1, 2, 3].map(chain))
    // Kills land during writes (the loop does nothing else) and the state moves on between them.
    expect(results.reduce((a, r) => a + r.interrupted, 0)).toBeGreaterThan(20)
    for (const r of results) expect(r.state).toBeGreaterThan(20)
    // Some kills landed between opening a temporary file and renaming it (each trial's leftovers are removed
    // by the next child's first save, so they are counted after every trial, not at the end)...
    expect(results.reduce((a, r) => a + r.leftBehind, 0)).toBeGreaterThan(0)
    // ...and the next save of each file removes what the last trials left (their writers are gone).
    for (const n of [0, 1, 2, 3]) await new ChangeLog(stateEdits(0)).save(join(work, `crash-${n}.json`))
    expect((await readdir(work)).filter((f) => f.endsWith(".tmp"))).toEqual([])
  })
})
