import { describe, expect, it } from "vitest"
import { checkTurn } from "./expect.js"
import { scriptOf } from "./test-helpers/fixtures.js"
import type { RequestView } from "./view.js"

const view = (over: Partial<RequestView>): RequestView => ({
  format: "anthropic",
  model: "m",
  stream: true,
  system: "",
  tools: [],
  dialect: "xml",
  lastTurn: { text: "", toolResults: [] },
  reasoning: { visible: false, summary: false, encrypted: false },
  ...over,
})

const turn = (t: Parameters<typeof scriptOf>[0]) => scriptOf(t).turns[0]!

describe("checkTurn", () => {
  it("passes a request that matches every expectation", () => {
    const t = turn({
      text: "ok",
      toolCalls: [{ name: "read_file", input: {} }],
      expect: {
        system: "You are",
        userText: "/please/i",
        dialect: "native",
        tools: ["read_file"],
        toolResults: [{ tool: "list_files", matches: "src/" }, { matches: "exit 0" }],
      },
    })
    const request = view({
      system: "You are a coding agent.",
      dialect: "native",
      tools: ["read_file", "list_files"],
      lastTurn: {
        text: "Please go on.",
        toolResults: [
          { tool: "list_files", text: "src/\nsrc/a.ts" },
          { tool: "execute_command", text: "exit 0" },
        ],
      },
    })
    expect(checkTurn(t, request)).toEqual([])
  })

  it("names each mismatch", () => {
    const t = turn({
      text: "ok",
      toolCalls: [{ name: "write_to_file", input: {} }],
      expect: {
        dialect: "xml",
        system: "rules",
        userText: "continue",
        tools: ["search_files"],
        toolResults: [{ tool: "read_file" }],
      },
    })
    const problems = checkTurn(
      t,
      view({
        dialect: "native",
        tools: ["read_file"],
        lastTurn: { text: "stop", toolResults: [{ tool: "list_files", text: "a" }] },
      }),
    )
    expect(problems).toEqual([
      "expected the xml tool dialect, the request uses native",
      "the system prompt does not match rules",
      'the last user text does not match continue: "stop"',
      'expected a tool result of read_file; the last turn has list_files: "a"',
      "the request does not declare the tool search_files",
      "the turn calls write_to_file, which the request does not declare (read_file)",
    ])
  })

  it("looks for XML-dialect tools by name in the system prompt, as whole words", () => {
    const t = turn({ text: "ok", expect: { tools: ["read_file", "execute_command"] } })
    expect(checkTurn(t, view({ system: "## read_file\n## execute_command\n" }))).toEqual([])
    expect(checkTurn(t, view({ system: "## read_files\n## execute_command_now" }))).toEqual([
      "the system prompt does not mention the tool read_file",
      "the system prompt does not mention the tool execute_command",
    ])
  })
})
