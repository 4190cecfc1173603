/**
 * A running `promptline serve` (its own process, as an operator starts it) under 10,000 generated hostile
 * requests on raw sockets: request lines, paths and percent escapes, methods, headers, bodies and their framing,
 * WebSocket upgrades and frames, with and without the token. The process must stay up, answer each one with an
 * HTTP status or a closed socket (never "the gateway failed", an exception nobody expected), log every request
 * as a JSON line, report no failure it could not answer, and then serve a valid request from an official SDK.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import Anthropic from "@anthropic-ai/sdk"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ReplayServer, startReplayServer } from "../replay/server.js"
import { finalTurn, scriptOf } from "../replay/test-helpers/fixtures.js"
import { FUZZ_TOKEN, type RawRequest, rawRequest, sendRaw } from "./test-helpers/raw-requests.js"

const root = join(dirname(fileURLToPath(import.meta.url)), "../..")
/** How many requests, and how many run at once. */
const COUNT = 10_000
const PARALLEL = 16

let replay: ReplayServer
let child: ChildProcess
let dir: string
let stdout = ""
let stderr = ""
let url = ""

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pl-fuzz-"))
  replay = await startReplayServer({ script: scriptOf(finalTurn), loop: true, keepRequests: 1 })
  const upstream = (provider: string, format: string, path = "") => ({
    provider,
    format,
    baseUrl: `${replay.url}${path}`,
    keyEnv: "UP_KEY",
  })
  const config = join(dir, "gw.json")
  await writeFile(
    config,
    JSON.stringify({
      gateway: {
        port: 0,
        tokenEnv: "GW_TOKEN",
        bodyLimit: 64 * 1024,
        headersTimeoutMs: 2_000,
        bodyTimeoutMs: 2_000,
        upstreams: {
          anthropic: upstream("anthropic", "anthropic"),
          chat: upstream("openai", "openai-chat", "/v1"),
          responses: upstream("openai", "openai-responses", "/v1"),
          gemini: upstream("gemini", "gemini"),
        },
        routes: [
          { match: "claude-*", upstream: "anthropic" },
          { match: "gpt-*", upstream: "chat" },
          { match: "o-*", upstream: "responses" },
          { match: "gemini-*", upstream: "gemini" },
          { match: "fit-*", upstream: "chat", mode: "translate", fit: true, cache: "optimize" },
          { match: "*", upstream: "anthropic", mode: "translate" },
        ],
      },
    }),
  )
  child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { main } = await import("./src/cli/main.ts"); process.exitCode = await main(["serve", "--json", "--config", ${JSON.stringify(config)}])`,
    ],
    {
      cwd: root,
      env: { PATH: process.env.PATH, HOME: dir, GW_TOKEN: FUZZ_TOKEN, UP_KEY: "sk-upstream" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  )
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString()
  })
  child.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString()
  })
  url = await new Promise<string>((resolve, reject) => {
    const look = () => {
      const line = stdout.split("\n").find((l) => l.includes('"event":"listening"'))
      if (line) resolve((JSON.parse(line) as { url: string }).url)
    }
    child.stdout!.on("data", look)
    child.once("exit", (code) => reject(new Error(`serve exited with ${code} before listening: ${stderr}`)))
  })
}, 60_000)

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve))
    child.kill("SIGTERM")
    await exited
  }
  await replay?.close()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** Sends every request, `PARALLEL` at a time; returns each answer's bytes. */
async function sendAll(port: number, requests: RawRequest[]): Promise<string[]> {
  const answers: string[] = new Array(requests.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < requests.length; i = next++) answers[i] = await sendRaw(port, requests[i]!)
  }
  await Promise.all(Array.from({ length: PARALLEL }, worker))
  return answers
}

describe("the gateway under generated hostile requests", () => {
  it(`stays up through ${COUNT.toLocaleString("en-US")} of them and serves the next valid request`, async () => {
    const requests = fc.sample(rawRequest, { seed: 27, numRuns: COUNT })
    const answers = await sendAll(Number(new URL(url).port), requests)
    expect(child.exitCode, stderr).toBeNull()
    // Each answer is an HTTP status line, or nothing (a socket closed without one: CONNECT, a reset).
    const malformed = answers.filter((a) => a !== "" && !/^HTTP\/1\.1 \d{3} /.test(a))
    expect(malformed.slice(0, 3)).toEqual([])
    const unexpected = answers.filter((a) => a.includes("the gateway failed"))
    expect(unexpected.slice(0, 3)).toEqual([])
    const statuses = new Set(answers.map((a) => a.slice(9, 12)))
    // The run reached deep enough to meet each kind of answer (not only the parser's 400).
    for (const status of ["101", "200", "400", "401", "404", "405", "413", "415"]) expect(statuses).toContain(status)
    // One JSON line per logged request; no failure the gateway had to report instead of answering.
    const lines = stdout.trim().split("\n")
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
    expect(lines.filter((l) => l.includes('"event":"error"')).slice(0, 3)).toEqual([])
    expect(stderr).toBe("")

    const client = new Anthropic({ apiKey: FUZZ_TOKEN, baseURL: url, maxRetries: 0 })
    const answer = await client.messages.create({
      model: "claude-sonnet",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
    })
    expect(answer.content).toEqual([expect.objectContaining({ type: "text", text: finalTurn.text })])
  }, 120_000)
})
