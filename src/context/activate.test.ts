import { join } from "node:path"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { activate, appliesTo, InstructionTracker } from "./activate.js"
import { gather } from "./gather.js"
import type { InstructionFile, PromptContext } from "./prompt-context.js"
import { createContext } from "./prompt-context.js"
import { cleanup, monorepo, tempDir } from "./test-helpers/workspace.js"

let repo: string
let home: string
let context: PromptContext
beforeAll(async () => {
  repo = await monorepo()
  home = await tempDir("promptline-home-")
  const result = await gather({ cwd: repo, home, env: {}, trust: true, model: { id: "m", provider: "p" }, mcp: false })
  context = result.context
})
afterAll(async () => {
  await cleanup(repo)
  await cleanup(home)
})

const paths = (files: InstructionFile[]) => files.map((f) => f.path)

describe("activate", () => {
  it("returns the conditional rules and nested files the touched paths switch on", () => {
    expect(paths(activate(context, ["packages/api/src/index.test.ts"]))).toEqual([
      ".clinerules/api.md",
      ".claude/rules/testing.md",
      ".github/instructions/ts.instructions.md",
      "packages/api/AGENTS.md",
    ])
    expect(paths(activate(context, ["packages/web/src/app.tsx"]))).toEqual([
      ".cursor/rules/react.mdc",
      "packages/web/AGENTS.override.md",
      "packages/web/src/CLAUDE.md",
    ])
    expect(paths(activate(context, ["scripts/tool.py"]))).toEqual([".windsurf/rules/glob.md"])
  })

  it("accepts absolute paths and ignores paths outside a rule's base", () => {
    expect(paths(activate(context, [join(repo, "packages/api/x.md")]))).toEqual([
      ".clinerules/api.md",
      "packages/api/AGENTS.md",
    ])
    expect(activate(context, ["../elsewhere/a.ts", "README.md"])).toEqual([])
  })

  it("never returns always-on, requested or manual files", () => {
    const anyPath = fc.stringMatching(/^[a-z]{1,5}(\/[a-z]{1,5}){0,3}\.(ts|tsx|py|md)$/)
    fc.assert(
      fc.property(fc.array(anyPath, { maxLength: 5 }), (touched) => {
        for (const f of activate(context, touched)) expect(f.activation.when).toBe("paths")
      }),
    )
  })
})

describe("appliesTo", () => {
  const rule = (globs: string[], base = "."): InstructionFile => ({
    path: "r.md",
    convention: "cursor",
    scope: "project",
    text: "x",
    activation: { when: "paths", globs },
    base,
  })

  it("matches slash-free globs against the name at any depth and others from the base", () => {
    expect(appliesTo(rule(["*.tsx"]), "a/b/c.tsx")).toBe(true)
    expect(appliesTo(rule(["src/*.ts"]), "lib/src/a.ts")).toBe(false)
    expect(appliesTo(rule(["src/*.ts"], "lib"), "lib/src/a.ts")).toBe(true)
    expect(appliesTo(rule(["**/*.ts"], "../.."), "x.ts")).toBe(true)
    expect(appliesTo(rule([".github/**"]), ".github/workflows/ci.yml")).toBe(true)
  })
})

describe("InstructionTracker", () => {
  it("hands out each nested file and rule once, for the folders of the file read", () => {
    const tracker = new InstructionTracker(context)
    expect(paths(tracker.instructionsFor("packages/web/src/app.tsx"))).toEqual([
      ".cursor/rules/react.mdc",
      "packages/web/AGENTS.override.md",
      "packages/web/src/CLAUDE.md",
    ])
    expect(tracker.instructionsFor("packages/web/src/app.tsx")).toEqual([])
    expect(paths(tracker.instructionsFor(join(repo, "packages/web/src/other.ts")))).toEqual([
      ".github/instructions/ts.instructions.md",
    ])
    expect(tracker.instructionsFor("README.md")).toEqual([])
  })

  it("counts always-on files as given and can be told about earlier ones", () => {
    const tracker = new InstructionTracker(context)
    expect(tracker.givenPaths).toContain("AGENTS.md")
    tracker.markGiven(["packages/api/AGENTS.md"])
    expect(paths(tracker.instructionsFor("packages/api/README"))).toEqual([".clinerules/api.md"])
  })

  it("works on a context made by hand", () => {
    const ctx = createContext({
      cwd: "/w",
      platform: { os: "Linux", shell: "bash", home: "/h" },
      date: "2025-01-01",
      model: { id: "m", provider: "p" },
      instructions: [
        {
          path: "a/AGENTS.md",
          convention: "agents-md",
          scope: "project",
          text: "A",
          base: "a",
          nested: true,
          activation: { when: "paths", globs: ["**"] },
        },
      ],
    })
    expect(paths(new InstructionTracker(ctx).instructionsFor("/w/a/b/c.ts"))).toEqual(["a/AGENTS.md"])
  })
})
