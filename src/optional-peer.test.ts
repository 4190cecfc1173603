import { execFile } from "node:child_process"
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import packageJson from "../package.json" with { type: "json" }
import { loadOptionalPeer } from "./optional-peer.js"
import { AI_PEER } from "./providers/ai-sdk-peer.js"

/** What loading one package through loadOptionalPeer gave, in a Node process of its own. */
interface Outcome {
  loaded?: true
  isPromptlineError?: boolean
  code?: string
  message?: string
  causeCode?: string
}

// A real Node process in a project without `ai`: the errors are the ones a user's Node throws, not the test runner's.
const CHILD = `
const { loadOptionalPeer } = await import(${JSON.stringify(new URL("./optional-peer.ts", import.meta.url).href)})
const { PromptlineError } = await import(${JSON.stringify(new URL("./errors.ts", import.meta.url).href)})
const outcomes = {}
for (const name of JSON.parse(process.argv[1])) {
  const peer = name === "ai" ? ${JSON.stringify(AI_PEER)} : { name, range: ">=1 <2", entry: "promptline/example" }
  try {
    await loadOptionalPeer(peer, () => import(name))
    outcomes[name] = { loaded: true }
  } catch (error) {
    const isPromptlineError = error instanceof PromptlineError
    outcomes[name] = { isPromptlineError, code: error.code, message: error.message, causeCode: error.cause?.code }
  }
}
process.stdout.write(JSON.stringify(outcomes))
`

// tsx from this repository (the child's folder has none), for the TypeScript sources.
const TSX = createRequire(import.meta.url).resolve("tsx")
let dir: string
let outcomes: Record<string, Outcome>
beforeAll(async () => {
  // The project: one package whose own dependency is missing, one that throws while it loads, one that loads.
  dir = await mkdtemp(join(tmpdir(), "pl-optional-peer-"))
  const pkg = async (name: string, code: string) => {
    await mkdir(join(dir, "node_modules", name), { recursive: true })
    await writeFile(join(dir, "node_modules", name, "package.json"), JSON.stringify({ name, type: "module" }))
    await writeFile(join(dir, "node_modules", name, "index.js"), code)
  }
  await pkg("needs-missing", 'import "pl-not-installed-dependency"\n')
  await pkg("throws", 'throw new Error("broken at load")\n')
  await pkg("loads", "export const ok = true\n")
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "project", type: "module" }))
  const names = ["pl-not-installed-peer", "ai", "needs-missing", "throws", "loads"]
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ["--import", TSX, "--input-type=module", "--eval", CHILD, JSON.stringify(names)],
    { cwd: dir },
  )
  outcomes = JSON.parse(stdout)
}, 60_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("loadOptionalPeer", () => {
  it("names the missing peer, its versions and the install command, in a typed error that keeps Node's", () => {
    expect(outcomes["pl-not-installed-peer"]).toEqual({
      isPromptlineError: true,
      code: "peer-missing",
      message:
        "promptline/example needs the `pl-not-installed-peer` package (>=1 <2): npm install pl-not-installed-peer",
      causeCode: "ERR_MODULE_NOT_FOUND",
    })
  })

  it("gives the AI SDK adapter's message for `ai`", () => {
    expect(outcomes.ai).toMatchObject({
      isPromptlineError: true,
      code: "peer-missing",
      message: "promptline/ai-sdk needs the `ai` package (>=5 <8): npm install ai",
    })
  })

  it("leaves other failures as they are: the peer's own dependency missing, an error while it loads", () => {
    expect(outcomes["needs-missing"]).toMatchObject({ isPromptlineError: false, code: "ERR_MODULE_NOT_FOUND" })
    expect(outcomes["needs-missing"]!.message).toContain("'pl-not-installed-dependency'")
    expect(outcomes.throws).toMatchObject({ isPromptlineError: false, message: "broken at load" })
  })

  it("returns the module when it loads", async () => {
    expect(outcomes.loads).toEqual({ loaded: true })
    const ai = await loadOptionalPeer(AI_PEER, () => import("ai"))
    expect(typeof ai.jsonSchema).toBe("function")
  })

  it("states the versions package.json declares for the peer", () => {
    expect(AI_PEER.range).toBe(packageJson.peerDependencies.ai)
  })
})
