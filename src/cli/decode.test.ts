import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { runCli } from "./test-helpers/run.js"

const recorded = fileURLToPath(new URL("../../test/fixtures/streams/", import.meta.url))
const handWritten = fileURLToPath(new URL("../../test/fixtures/providers/streams/", import.meta.url))

describe("promptline decode", () => {
  it("prints the assembled message, usage and stop reason of a JSON-lines recording", async () => {
    const { code, stdout, stderr } = await runCli([
      "decode",
      "--format",
      "anthropic",
      "--model",
      "claude-sonnet-4-5",
      join(recorded, "anthropic/anthropic-clear-thinking.1.chunks.txt"),
    ])
    expect(stderr).toBe("")
    expect(code).toBe(0)
    const out = JSON.parse(stdout)
    expect(out.message.content.map((b: { type: string }) => b.type)).toEqual(["thinking", "text"])
    expect(out.message.content[0].model).toBe("claude-sonnet-4-5")
    expect(out.usage).toEqual({ input: 69, output: 53, cacheRead: 0, cacheWrite: 0 })
    expect(out.stopReason).toBe("end")
    expect(out.stats.pings).toBe(1)
  })

  it("prints the events of a raw SSE file, one JSON object per line, relative to the working directory", async () => {
    const { code, stdout } = await runCli(["decode", "--format", "gemini", "--events", "gemini-error-after-call.sse"], {
      cwd: handWritten,
    })
    expect(code).toBe(1)
    const events = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l))
    expect(events[0]).toEqual({ type: "start", id: "gem_hand_1", model: "gemini-2.5-pro" })
    expect(events.map((e: { type: string }) => e.type)).toContain("tool_call_end")
    expect(events[events.length - 1]).toEqual({ type: "stop", reason: "error" })
  })

  it("decodes a non-streamed body and a recording of several responses", async () => {
    const body = await runCli(["decode", "--format", "gemini", join(recorded, "gemini/google-tool-call-gemini3.json")])
    expect(body.code).toBe(0)
    expect(JSON.parse(body.stdout).stopReason).toBe("tool_use")
    const several = await runCli([
      "decode",
      "--format",
      "openai-responses",
      join(recorded, "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt"),
    ])
    const responses = JSON.parse(several.stdout)
    expect(responses).toHaveLength(4)
    expect(responses[3].message.content).toEqual([{ type: "text", text: "The final result is **570**." }])
  })

  it("exits 1 on a failed response, and reports bad input", async () => {
    const failed = await runCli([
      "decode",
      "--format",
      "openai-responses",
      join(recorded, "openai-responses/openai-error.1.chunks.txt"),
    ])
    expect(failed.code).toBe(1)
    expect(JSON.parse(failed.stdout).errors[0].kind).toBe("quota")
    const missing = await runCli(["decode", "--format", "anthropic", "nope.txt"], {
      cwd: mkdtempSync(join(tmpdir(), "pl-")),
    })
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/nope\.txt: cannot read the recording: it does not exist/)
    const badFormat = await runCli(["decode", "--format", "cohere", "x"])
    expect(badFormat.code).not.toBe(0)
    expect(badFormat.stderr).toMatch(/Allowed choices are anthropic, openai-chat/)
    const dir = mkdtempSync(join(tmpdir(), "pl-"))
    writeFileSync(join(dir, "bad.json"), "{ not json")
    const badJson = await runCli(["decode", "--format", "anthropic", "--shape", "json", "bad.json"], { cwd: dir })
    expect(badJson.code).toBe(1)
    expect(badJson.stderr).toMatch(/bad\.json:1:3: not valid JSON: "not" is not allowed here/)
  })

  it("detects the format from the payloads, and names a --format that contradicts them", async () => {
    const file = join(recorded, "anthropic/anthropic-clear-thinking.1.chunks.txt")
    const detected = await runCli(["decode", file])
    expect(detected.code).toBe(0)
    expect(JSON.parse(detected.stdout).stopReason).toBe("end")
    const wrong = await runCli(["decode", "--format", "openai-chat", file])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toContain('looks like anthropic (a "message_start" event), not openai-chat')
    const dir = mkdtempSync(join(tmpdir(), "pl-decode-detect-"))
    writeFileSync(join(dir, "plain.txt"), "nothing here\n")
    const unknown = await runCli(["decode", join(dir, "plain.txt")])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("no wire format could be detected")
    expect(unknown.stderr).toContain('"nothing here"')
  })
})
