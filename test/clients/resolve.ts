// The official SDKs the tests use as clients live in test/clients/node_modules, apart from the README's
// `npm install`. Test files import them by their usual names ("openai", "@anthropic-ai/sdk/resources/messages");
// this Vite plugin resolves those names from test/clients/ (with each package's own exports map), and
// tsconfig.json's `paths` does the same for `tsc`. Vitest's global set-up (setup.ts) installs the set first.

import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Plugin } from "vite"
import { packageName } from "../peers/load.js"

/** The folder of the clients' package.json. */
export const CLIENTS_DIR = dirname(fileURLToPath(import.meta.url))

/** The package names test/clients/package.json lists. */
export function clientNames(): string[] {
  const pkg = JSON.parse(readFileSync(join(CLIENTS_DIR, "package.json"), "utf8")) as Record<string, unknown>
  return Object.keys((pkg.dependencies ?? {}) as Record<string, string>)
}

/** A Vite plugin that resolves the clients' names as if imported from test/clients/. */
export function resolveClients(): Plugin {
  const names = new Set(clientNames())
  const importer = join(CLIENTS_DIR, "package.json")
  return {
    name: "promptline-test-clients",
    enforce: "pre",
    resolveId(source, _from, options) {
      if (!names.has(packageName(source))) return null
      return this.resolve(source, importer, { ...options, skipSelf: true })
    },
  }
}
