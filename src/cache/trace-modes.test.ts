/**
 * Trace files hold request bodies: only the user may read them. Files are 0600 and the store's folders 0700,
 * those it makes and those an earlier version left open; a trace folder the user already had keeps its mode.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { TokenCounter } from "../history/tokens.js"
import { defaultPrompt, encoded, scriptHistory } from "./test-helpers/script.js"
import { type TraceInput, TraceStore } from "./trace-store.js"

let counter: TokenCounter
let dir: string
beforeAll(async () => {
  counter = await TokenCounter.create()
})
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "promptline-trace-modes-"))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const history = scriptHistory(10, 5)

/** Request `k` of one conversation. */
function input(k: number): TraceInput {
  const sent = encoded("anthropic", defaultPrompt(), history.slice(0, 2 * k - 1), k * 1000)
  return {
    at: k * 1000,
    durationMs: 10,
    clientApi: "anthropic",
    upstream: { format: "anthropic", provider: "anthropic" },
    model: sent.model!,
    sent: { body: sent.body },
  }
}

const modeOf = async (path: string) => ((await stat(path)).mode & 0o777).toString(8)

/** The mode of every file and folder below `root`, by path relative to it. */
async function modesUnder(root: string): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    out.set(path.slice(root.length + 1), await modeOf(path))
  }
  return out
}

describe("trace file modes", () => {
  it("makes every file 0600 and every folder 0700, the trace folder included", async () => {
    const traces = join(dir, "deep", "traces")
    await new TraceStore(traces, { counter }).record(input(1))
    expect(await modeOf(traces)).toBe("700")
    const modes = await modesUnder(traces)
    expect(modes.size).toBeGreaterThan(3)
    for (const [path, mode] of modes)
      expect(mode, path).toBe(path.endsWith(".json") || path.endsWith(".jsonl") ? "600" : "700")
  })

  it("narrows the folders and the rewritten files an earlier version left readable; the user's own folder stays", async () => {
    const traces = join(dir, "mine")
    await mkdir(traces, { mode: 0o755 })
    await chmod(traces, 0o755)
    const first = await new TraceStore(traces, { counter }).record(input(1))
    // As an earlier version wrote them: folders 0755, files 0644.
    for (const [path] of await modesUnder(traces)) {
      const full = join(traces, path)
      await chmod(full, (await stat(full)).isDirectory() ? 0o755 : 0o644)
    }
    const second = await new TraceStore(traces, { counter }).record(input(2))
    expect(second.conversation).toBe(first.conversation)
    expect(await modeOf(traces)).toBe("755")
    expect(await modeOf(join(traces, "conversations"))).toBe("700")
    expect(await modeOf(join(traces, "blobs"))).toBe("700")
    expect(await modeOf(join(traces, "conversations", `${first.conversation}.jsonl`))).toBe("600")
  })
})
