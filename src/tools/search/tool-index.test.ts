import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { loadToolSearchServers, toolSearchContext } from "../../../test/fixtures/tool-search/load.js"
import { build } from "../../prompt/builder.js"
import type { EnabledTool, JsonSchema } from "../spec.js"
import { lookUpWord } from "./lexicon.js"
import { analyzeQuery } from "./query.js"
import { ToolSearchIndex } from "./tool-index.js"

/** A deferred MCP tool made for a test. */
function tool(
  server: string,
  name: string,
  description: string,
  properties: Record<string, JsonSchema> = {},
): EnabledTool {
  return {
    id: `mcp__${server}__${name}`,
    kind: "mcp",
    name: `mcp__${server}__${name}`,
    description,
    snippet: description,
    guidelines: [],
    parameters: { type: "object", properties, required: [] },
    examples: {},
    mcp: { server, tool: name },
  }
}

const first = (index: ToolSearchIndex, query: string) => index.search(query, 1)[0]?.tool.mcp?.tool

const fixture = new ToolSearchIndex(build(toolSearchContext()).deferredTools)
const top = (query: string, n = 5) => fixture.search(query, n).map((m) => `${m.tool.mcp?.server}/${m.tool.mcp?.tool}`)

describe("query words are stemmed once, like the tools' text", () => {
  // Each of these matched nothing, or only as a prefix, when the query was stemmed a second time.
  const words = ["close", "browse", "pause", "database", "release", "response", "closing", "paused", "databases"]

  it("finds the one tool whose description has the word, in any of its forms", () => {
    fc.assert(
      fc.property(fc.constantFrom(...words), fc.constantFrom("", "s", "d"), (word, ending) => {
        const index = new ToolSearchIndex([
          tool("a", "first", "Lists the entries of a folder."),
          tool("a", "second", `Does the ${word} step for the current item.`),
          tool("a", "third", "Counts the lines of a text."),
        ])
        const query = /e$/.test(word) ? `${word}${ending}` : word
        expect(first(index, query)).toBe("second")
      }),
    )
  })
})

describe("query analysis", () => {
  it("reads the opening verb as a verb and its object as a noun", () => {
    expect(analyzeQuery("file a bug report").map((w) => [w.word, w.role])).toEqual([
      ["file", "v"],
      ["bug", "n"],
      ["report", "n"],
    ])
    expect(analyzeQuery("open the file").map((w) => w.role)).toEqual(["v", "n"])
    expect(analyzeQuery("please can you help me to close it").map((w) => [w.word, w.role])).toEqual([["close", "v"]])
  })

  it("drops numbers, single characters and the extensions of file and host names", () => {
    expect(analyzeQuery("read 20 lines of notes.txt from example.com x").map((w) => w.word)).toEqual([
      "read",
      "lines",
      "notes",
      "example",
      "file",
    ])
  })

  it("reads a verb where a clause opens or before its object, not elsewhere", () => {
    const roles = (q: string) => analyzeQuery(q).map((w) => `${w.word}:${w.role ?? ""}`)
    expect(roles("the task is done, shift it to the last column")).toContain("shift:v")
    expect(roles("the task is done and shift it")).toContain("shift:v")
    expect(roles("put my work aside")).toContain("put:v")
    expect(roles("a report on the shift schedule")).toContain("shift:n")
  })

  it("adds the word for what a query names by its form: a file, a web address, an e-mail address", () => {
    const words = (q: string) => analyzeQuery(q).map((w) => w.word)
    expect(words("stage src/app.ts")).toEqual(["stage", "src", "app", "file"])
    expect(words("what does .env.example say")).toContain("file")
    expect(words("fetch https://example.com/a")).toContain("url")
    expect(words("find the user ann@example.com")).toContain("email")
    // A host name or a branch name is no file.
    expect(words("open example.com")).not.toContain("file")
    expect(words("check out feature/login")).not.toContain("file")
  })

  it("leaves identifiers out unless a tool's text has them", () => {
    const index = new ToolSearchIndex([
      tool("k", "scale", "Scales a k8s deployment."),
      tool("k", "show", "Shows a commit."),
    ])
    expect(first(index, "show commit 4f2e1a")).toBe("show")
    expect(index.search("k8s", 5).map((m) => m.tool.mcp?.tool)).toEqual(["scale"])
    expect(index.search("4f2e1a", 5)).toEqual([])
  })
})

describe("expansion is guarded", () => {
  it("ranks a tool with the query's own word above one that has only its synonym", () => {
    // Every first-sense verb synonym WordNet gives for a few everyday task verbs.
    const pairs = ["change", "remove", "find", "send", "show", "start", "stop", "copy"].flatMap((w) =>
      (lookUpWord(w)?.entry.v?.[0]?.synonyms ?? []).map((s) => [w, s] as const),
    )
    expect(pairs.length).toBeGreaterThan(5)
    fc.assert(
      fc.property(fc.constantFrom(...pairs), fc.boolean(), ([word, synonym], swap) => {
        const own = tool("s", "own", `Will ${word} the record.`)
        const other = tool("s", "other", `Will ${synonym} the record.`)
        const index = new ToolSearchIndex(swap ? [other, own] : [own, other])
        expect(first(index, `${word} the record`)).toBe("own")
      }),
    )
  })

  it("counts a query word once, with its best match, however many synonyms it has", () => {
    // "affect" has many synonyms; a tool matching them all must not beat one that has the other query word.
    const index = new ToolSearchIndex([
      tool("s", "many", "Impact, touch, involve, regard and change things."),
      tool("s", "budget", "Shows how a change would affect the budget."),
    ])
    expect(first(index, "what would affect the budget")).toBe("budget")
  })

  it("follows the sense of the role the word has: 'file' as a verb is not a file on disk", () => {
    expect(top("file a bug on github")[0]).toBe("github/create_issue")
    expect(top("read the file notes")).toContain("filesystem/read_text_file")
  })
})

describe("words side by side", () => {
  it("ranks a tool whose text has two query words side by side above one that has them apart", () => {
    for (const swap of [false, true]) {
      const apart = tool("s", "apart", "Request the branch, pull a change.")
      const together = tool("s", "together", "Lists the pull request of a change.")
      const index = new ToolSearchIndex(swap ? [together, apart] : [apart, together])
      expect(first(index, "change the pull request")).toBe("together")
    }
  })
})

describe("fields and servers", () => {
  it("finds a tool by a parameter's name, description or enum value", () => {
    const index = new ToolSearchIndex([
      tool("w", "get", "Reads a resource.", { format: { type: "string", enum: ["markdown", "html"] } }),
      tool("w", "put", "Writes a resource.", { path: { type: "string", description: "Where the invoice lives." } }),
      tool("w", "list", "Lists resources.", { cursor: { type: "string" } }),
    ])
    expect(first(index, "markdown")).toBe("get")
    expect(first(index, "invoice")).toBe("put")
    expect(first(index, "cursor")).toBe("list")
  })

  it("tells near-duplicate browser, fetch and tracker tools apart by the service the query names", () => {
    expect(top("click the button with playwright")[0]).toBe("playwright/browser_click")
    expect(top("click the button with puppeteer")[0]).toBe("puppeteer/puppeteer_click")
    expect(top("click the button in chrome devtools")[0]).toBe("chrome-devtools/click")
    expect(top("take a screenshot with playwright")[0]).toBe("playwright/browser_take_screenshot")
    expect(top("create an issue in linear")[0]).toBe("linear/linear_create_issue")
    expect(top("search places for ramen on google maps")[0]).toBe("google-maps/maps_search_places")
  })

  it("does not take a word that all of a server's tool names share for what the tool does", () => {
    // ea-playwright names every tool playwright_*; naming Playwright should not favour that server.
    const [best] = top("navigate to the url with playwright")
    expect(best).toBe("playwright/browser_navigate")
  })

  it("finds every tool of the fixture in its top 10 by its server and its own name's words", () => {
    const tools = fixture.search("", 0)
    expect(tools).toEqual([])
    const missed = loadToolSearchServers().flatMap((s) =>
      s.tools
        .filter((t) => {
          const words = t.name.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z])/g, "$1 $2")
          return !top(`${s.name} ${words}`, 10).includes(`${s.name}/${t.name}`)
        })
        .map((t) => `${s.name}/${t.name}`),
    )
    expect(missed).toEqual([])
  })
})

describe("third pass: description fields, operations, coined server names", () => {
  it("reads a participle of a known verb, and a word after a subject or auxiliary, as the verb", () => {
    const roles = (q: string) => analyzeQuery(q).map((w) => `${w.word}:${w.role ?? ""}`)
    expect(roles("which jobs finished last night")).toContain("finished:v")
    expect(roles("what did I change in the branch")).toContain("change:v")
    expect(roles("a report on the change in the branch")).toContain("change:n")
  })

  it("scores down a tool whose name says another API operation than the query's verb", () => {
    for (const swap of [false, true]) {
      // The same description; only the name tells them apart, and neither name has the query's own verb.
      const update = tool("t", "update_customer", "The record of a customer.")
      const details = tool("t", "customer_details", "The record of a customer.")
      const index = new ToolSearchIndex(swap ? [details, update] : [update, details])
      // "show" asks for a reading (get): the tool whose name says it updates ranks below the one that says nothing.
      expect(first(index, "show the customer record")).toBe("customer_details")
    }
  })

  it("keeps a long description's notes from diluting its first sentence", () => {
    const notes = " Mind the rate limit. Results are paged. Use a cursor for the next page.".repeat(6)
    for (const swap of [false, true]) {
      const long = tool("d", "long", `Archives a mailbox.${notes}`)
      const short = tool("d", "short", "Archive mailbox items and their threads.")
      const index = new ToolSearchIndex(swap ? [short, long] : [long, short])
      // Both first sentences have the two words; the long one's first sentence is the shorter.
      expect(first(index, "archive the mailbox")).toBe("long")
    }
  })

  it("takes a word the lexicon does not know for a server whose name it begins, never an ordinary word", () => {
    const index = new ToolSearchIndex([
      tool("mongodb", "find", "Finds documents in a collection."),
      tool("postgres", "query", "Finds rows in a table."),
      tool("context7", "docs", "Finds library documentation."),
      tool("notes", "find", "Finds documents in a notebook."),
    ])
    expect(index.search("find documents with mongo", 1)[0]?.tool.mcp?.server).toBe("mongodb")
    // "context" is an English word: it names no server by prefix, so documents are found where they are.
    expect(index.search("find documents in context", 1)[0]?.tool.mcp?.server).not.toBe("context7")
  })
})

describe("fourth pass: question words", () => {
  it("keeps a question word that asks for an API operation as the query's verb, and no other stop word", () => {
    const roles = (q: string) => analyzeQuery(q).map((w) => `${w.word}:${w.role ?? ""}`)
    expect(roles("where are the png files")).toEqual(["where:v", "png:", "files:n"])
    expect(roles("which boards are mine")).toContain("which:v")
    // "why" and "how" ask for no operation jargon.ts knows; "the" and "are" are not questions.
    expect(roles("why is it so slow, and how").map((r) => r.split(":")[0])).toEqual(["slow"])
  })

  it("ranks the tool that does what a question asks for: 'where' asks for a search", () => {
    for (const swap of [false, true]) {
      // The same words but the name's verb: only the question word tells them apart.
      const read = tool("n", "read_notes", "Notes about a topic.")
      const search = tool("n", "search_notes", "Notes about a topic.")
      const index = new ToolSearchIndex(swap ? [search, read] : [read, search])
      expect(first(index, "where are my notes about taxes")).toBe("search_notes")
    }
  })
})
