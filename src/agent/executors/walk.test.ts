import path from "node:path"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { git, ignoredByGit, slashRuleTakenBack } from "../../context/test-helpers/workspace.js"
import { tempWorkspace, textOf } from "./test-helpers/workspace.js"
import { walk } from "./walk.js"

/** Every path the walk yields below `root`, POSIX, folders without a trailing slash. */
async function walked(root: string, start = root): Promise<string[]> {
  const out: string[] = []
  for await (const e of walk({ root, start, recursive: true, hidden: true, order: "depth" })) {
    out.push(path.relative(root, e.absolute).split(path.sep).join("/"))
  }
  return out
}

// `..x` is a name inside its folder that only starts with two dots.
const name = fc.constantFrom("a", "b", "build", "keep", "..x")
const rule = fc.constantFrom("build", "!build", "build/", "!build/", "keep", "!*/", "*.log", "/a", "a/build", "b/*")

describe("the agent's walk against git", () => {
  it("yields exactly what git does not ignore, name rules and negations in nested files", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(name, { maxLength: 3 }), { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.array(name, { maxLength: 2 }), fc.array(rule, { minLength: 1, maxLength: 3 })), {
          maxLength: 3,
        }),
        async (folders, ignores) => {
          const files: Record<string, string> = {}
          for (const parts of folders) files[[...parts, "f.ts"].join("/")] = "text\n"
          for (const [parts, rules] of ignores) files[[...parts, ".gitignore"].join("/")] = `${rules.join("\n")}\n`
          // A slash rule with a negation in a file below it is the case left to the ignore package (decisions.md).
          fc.pre(!slashRuleTakenBack(files))
          const ws = await tempWorkspace()
          try {
            for (const [file, text] of Object.entries(files)) await ws.write(file, text)
            const all = new Set<string>()
            for (const file of Object.keys(files)) {
              const parts = file.split("/")
              for (let i = 1; i <= parts.length; i++) all.add(parts.slice(0, i).join("/"))
            }
            git(ws.root, "init", "-q")
            const ignored = ignoredByGit(ws.root, [...all])
            const expected = [...all].filter((p) => !ignored.has(p)).sort()
            expect((await walked(ws.root)).filter((p) => p !== ".git" && !p.startsWith(".git/")).sort()).toEqual(
              expected,
            )
          } finally {
            await ws.dispose()
          }
        },
      ),
      { numRuns: 50 },
    )
  })

  it("enters a folder a deeper .gitignore takes back, and lists nothing of an ignored folder asked for", async () => {
    const ws = await tempWorkspace()
    try {
      await ws.write(".gitignore", "build\n")
      await ws.write("a/.gitignore", "!build\n")
      await ws.write("a/build/x/f.ts", "text\n")
      await ws.write("build/out.js", "text\n")
      await ws.write("dist/bundle.js", "text\n")
      expect(await walked(ws.root)).toEqual([
        ".gitignore",
        "a",
        "a/.gitignore",
        "a/build",
        "a/build/x",
        "a/build/x/f.ts",
        "dist",
        "dist/bundle.js",
      ])
      expect(textOf(await ws.run("list_files", { path: "a/build", recursive: true }))).toBe(
        ["a/build/x/", "a/build/x/f.ts"].join("\n"),
      )
      // Asked for an ignored folder itself, by a name rule or by a slash rule, the walk shows nothing of it.
      expect(await walked(ws.root, path.join(ws.root, "build"))).toEqual([])
      await ws.write(".gitignore", "/dist/\n")
      expect(await walked(ws.root, path.join(ws.root, "dist"))).toEqual([])
      expect(await walked(ws.root, path.join(ws.root, "build"))).toEqual(["build/out.js"])
    } finally {
      await ws.dispose()
    }
  })
})
