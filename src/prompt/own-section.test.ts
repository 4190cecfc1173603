import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import type { BuiltPrompt } from "../index.js"

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..")

/** The TypeScript block that follows `<!-- docs-snippet: NAME ... -->` in a docs page. */
async function snippet(page: string, name: string): Promise<string> {
  const text = await readFile(join(ROOT, "docs", page), "utf8")
  const at = text.indexOf(`<!-- docs-snippet: ${name} `)
  if (at < 0) throw new Error(`docs/${page} has no snippet "${name}"`)
  const block = /```ts\n([\s\S]*?)```/.exec(text.slice(at))
  if (!block) throw new Error(`the snippet "${name}" has no ts block`)
  return block[1]!
}

describe("a section of your own, as docs/prompt.md writes it", () => {
  it("runs against the package's root entry: tpl text is rendered, data text is kept as it is", async () => {
    const code = (await snippet("prompt.md", "own-section")).replaceAll(
      'from "promptline"',
      `from ${JSON.stringify(pathToFileURL(join(ROOT, "src", "index.ts")).href)}`,
    )
    const dir = await mkdtemp(join(tmpdir(), "pl-docs-snippet-"))
    try {
      const file = join(dir, "own-section.ts")
      await writeFile(file, code)
      const { prompt } = (await import(pathToFileURL(file).href)) as { prompt: BuiltPrompt }
      const section = prompt.sections.find((s) => s.id === "release-notes")
      expect(section?.text).toBe("## Release notes for promptline\n\nRenamed ${{ secret }} to token in v2.")
      expect(prompt.diagnostics.filter((d) => d.level === "error")).toEqual([])
      // The comment under the snippet shows the same text.
      expect(code).toContain(`// ${JSON.stringify(section?.text)}`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
