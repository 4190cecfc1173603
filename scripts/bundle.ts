// The JavaScript of dist/: one file per package entry (and the CLI), the code they share in dist/chunks/, built
// by esbuild from src/. tsc writes the declarations (`tsc -p tsconfig.build.json`, declarations only) before this
// runs. Packages stay external (they load from node_modules as before), and each `import()` in the source stays a
// separate chunk, so what a command or a call loads on first use is still loaded only then (docs/decisions.md,
// "dist/ is bundled by esbuild").

import { readdir, rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const dist = join(root, "dist")

/** The entries: each package export of package.json, and the CLI's `main` that bin/promptline.js imports. */
const ENTRIES: Record<string, string> = {
  index: "src/index.ts",
  "agent/index": "src/agent/index.ts",
  "replay/index": "src/replay/index.ts",
  "gateway/index": "src/gateway/index.ts",
  "cache/index": "src/cache/index.ts",
  "inspect/index": "src/inspect/index.ts",
  "providers/ai-sdk": "src/providers/ai-sdk.ts",
  "cli/main": "src/cli/main.ts",
}

/** Every `.js` file under a folder (the output of an earlier build, tsc's or ours). */
async function scripts(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true }).catch(() => [])
  return names.filter((name) => name.endsWith(".js")).map((name) => join(dir, name))
}

/** Removes the JavaScript of an earlier build (the declarations stay), then writes the bundles. */
export async function bundle(): Promise<void> {
  for (const file of await scripts(dist)) await rm(file)
  await rm(join(dist, "chunks"), { recursive: true, force: true })
  await build({
    absWorkingDir: root,
    entryPoints: ENTRIES,
    outdir: dist,
    chunkNames: "chunks/[name]-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  })
}

await bundle()
