import { readFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "jsonc-parser"
import { describe, expect, it } from "vitest"
import { CLIENTS_DIR, clientNames } from "./resolve.js"

const ROOT = join(CLIENTS_DIR, "../..")
const readJson = (file: string) => parse(readFileSync(join(ROOT, file), "utf8")) as Record<string, unknown>

describe("the official SDK clients (test/clients/)", () => {
  it("stay out of the README's npm install: none is a dependency of the package", () => {
    const pkg = readJson("package.json") as Record<string, Record<string, string> | undefined>
    const installed = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.optionalDependencies })
    expect(clientNames().filter((name) => installed.includes(name))).toEqual([])
  })

  it("each has a line in tsconfig.json's paths, pointing at a declaration file in test/clients/node_modules", () => {
    const paths = (readJson("tsconfig.json").compilerOptions as { paths: Record<string, string[]> }).paths
    for (const name of clientNames()) {
      expect(paths[name], name).toEqual([expect.stringMatching(/^\.\/test\/clients\/node_modules\/.+\.d\.m?ts$/)])
      expect(paths[name]![0]!.startsWith(`./test/clients/node_modules/${name}/`), name).toBe(true)
    }
    const mapped = Object.keys(paths).map((key) => key.replace(/\/\*$/, ""))
    expect(mapped.filter((name) => !clientNames().includes(name))).toEqual([])
  })
})
