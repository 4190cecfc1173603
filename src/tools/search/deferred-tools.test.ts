import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { toolSearchContext } from "../../../test/fixtures/tool-search/load.js"
import { build } from "../../prompt/builder.js"
import type { EnabledTool } from "../spec.js"
import { DeferredTools } from "./deferred-tools.js"
import { renderToolMatches } from "./render.js"
import { stemTerm, toolTerms } from "./tool-index.js"

const built = build(toolSearchContext())
const deferred = new DeferredTools(built.deferredTools)
const top = (query: string, n = 5) => deferred.search(query, n).map((m) => `${m.tool.mcp?.server}/${m.tool.mcp?.tool}`)

describe("tool search ranking", () => {
  it("puts the right tool first for plain task phrasings", () => {
    expect(top("open a pull request on github")[0]).toBe("github/create_pull_request")
    expect(top("take a screenshot with playwright")[0]).toBe("playwright/browser_take_screenshot")
    expect(top("post a message to a slack channel")[0]).toBe("slack/slack_post_message")
    expect(top("driving directions between two addresses")[0]).toBe("google-maps/maps_directions")
  })

  it("ranks the tools of a server the query names above the same tool of another server", () => {
    expect(top("create an issue on gitlab")[0]).toBe("gitlab/create_issue")
    expect(top("create an issue on github")[0]).toBe("github/create_issue")
  })

  it("returns an exact tool name first, clamps the limit, and finds nothing for words no tool has", () => {
    expect(deferred.search("mcp__memory__read_graph")[0]!.tool.name).toBe("mcp__memory__read_graph")
    expect(deferred.search("create", 50)).toHaveLength(10)
    expect(deferred.search("issue", 0)).toHaveLength(1)
    expect(deferred.search("issue")).toHaveLength(5)
    expect(deferred.search("zzqx wvvy")).toEqual([])
  })

  it("gives the same ranking for the same query every time (ties keep the tool order)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("create", "list", "file", "page", "user", "github", "read"), { maxLength: 4 }),
        (words) => {
          const q = words.join(" ")
          const again = new DeferredTools(built.deferredTools)
          expect(again.search(q, 10).map((m) => m.tool.name)).toEqual(deferred.search(q, 10).map((m) => m.tool.name))
        },
      ),
      { numRuns: 25 },
    )
  })

  it("renders matches with their names and full parameter schemas", () => {
    const matches = deferred.search("create a github issue", 2)
    const text = renderToolMatches("create a github issue", matches, deferred.tools.length)
    expect(text).toContain("## mcp__github__create_issue")
    expect(text).toContain(JSON.stringify(matches[0]!.tool.parameters))
    expect(renderToolMatches("zzqx", [], 138)).toContain('No tool matched "zzqx" among 138 tools')
  })

  it("splits names at separators and camel case, and stems with Porter2", () => {
    expect(toolTerms("API-get-block_children listCommits")).toEqual([
      "API",
      "get",
      "block",
      "children",
      "list",
      "Commits",
    ])
    expect(["creating", "created", "creates"].map(stemTerm)).toEqual(["creat", "creat", "creat"])
    expect(["close", "closes", "closing"].map(stemTerm)).toEqual(["close", "close", "close"])
    expect(["running", "logging", "issues", "directories"].map(stemTerm)).toEqual(["run", "log", "issu", "directori"])
    expect([stemTerm("the"), stemTerm("42"), stemTerm("x")]).toEqual([null, null, null])
  })
})

describe("argument checking", () => {
  const issue = deferred.get("mcp__github__create_issue") as EnabledTool

  it("accepts arguments that match the schema, as an object or as JSON text", () => {
    const args = { owner: "o", repo: "r", title: "Crash on login" }
    expect(deferred.check(issue, args)).toEqual({ ok: true, value: args })
    expect(deferred.check(issue, JSON.stringify(args))).toEqual({ ok: true, value: args })
  })

  it("names every missing or mistyped parameter and repeats the schema", () => {
    const result = deferred.check(issue, { owner: "o", title: 42, labels: "bug" })
    expect(result.ok).toBe(false)
    const message = (result as { message: string }).message
    expect(message).toContain("missing required parameter 'repo'")
    expect(message).toContain("parameter 'title' must be string")
    expect(message).toContain("parameter 'labels' must be array")
    expect(message).toContain(`Its parameter schema: ${JSON.stringify(issue.parameters)}`)
  })

  it("refuses text that is not JSON and values that are not objects", () => {
    expect(deferred.check(issue, "{owner: o")).toMatchObject({
      ok: false,
      message: expect.stringContaining("not valid JSON"),
    })
    expect(deferred.check(issue, [1, 2])).toMatchObject({ ok: false, message: expect.stringContaining("JSON object") })
  })

  it("names unknown parameters when the schema forbids extra ones, and enum values", () => {
    const tool: EnabledTool = {
      ...issue,
      parameters: {
        type: "object",
        properties: { mode: { type: "string", enum: ["a", "b"] } },
        required: [],
        additionalProperties: false,
      },
    }
    const message = (deferred.check(tool, { mode: "c", extra: 1 }) as { message: string }).message
    expect(message).toContain(`parameter 'mode' must be one of "a", "b"`)
    expect(message).toContain("unknown parameter 'extra'")
  })
})
