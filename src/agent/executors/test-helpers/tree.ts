import type { TempWorkspace } from "./workspace.js"

/**
 * A small project for search and listing tests: nested .gitignore files (one with a negation),
 * a .ignore file, hidden files, node_modules, a binary file, and text with repeated matches.
 */
export async function writeSampleTree(ws: TempWorkspace): Promise<void> {
  const files: Record<string, string | Buffer> = {
    ".gitignore": "dist/\n*.log\n",
    ".ignore": "secrets.txt\n",
    ".hidden/config": "needle in a hidden folder\n",
    ".env": "NEEDLE=1\n",
    "README.md": "# Sample\n\nFind the needle here.\n",
    "app.log": "needle in a log\n",
    "secrets.txt": "needle secret\n",
    "dist/bundle.js": "needle in build output\n",
    "node_modules/lib/index.js": "needle in a dependency\n",
    "src/.gitignore": "generated/\n*.gen.ts\n!keep.gen.ts\n",
    "src/generated/out.ts": "needle generated\n",
    "src/keep.gen.ts": "export const needle = 1\n",
    "src/drop.gen.ts": "export const needle = 2\n",
    "src/main.ts": [
      "import { helper } from './util'",
      "",
      "// needle one",
      "const needle = helper()",
      "console.log(needle)",
      "",
      "function other() {",
      "  return 1",
      "}",
      "",
      "export const last = needle",
    ].join("\n"),
    "src/util.ts": "export function helper() {\n  return 'no match here'\n}\n",
    "src/deep/nested/thing.py": "def needle():\n    pass\n",
    "src/z-last.ts": "// NEEDLE upper case only\n",
    "image.bin": Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00, 0x01, 0x02]),
  }
  for (const [file, content] of Object.entries(files)) await ws.write(file, content)
}
