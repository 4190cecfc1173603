import { describe, expect, it } from "vitest"
import type { z } from "zod"
import { BUILTIN_TOOLS } from "../../tools/catalog/index.js"
import { validateArgs } from "./args.js"
import { EXECUTORS, hasExecutor } from "./index.js"

/** Parameters the catalog requires that an executor deliberately defaults (a tool without arguments). */
const LENIENT: Record<string, string[]> = { use_mcp_tool: ["arguments"] }

/** The executors and the tool catalog are written separately; this keeps their parameters in step. */
describe("executors agree with the tool catalog", () => {
  const withExecutor = BUILTIN_TOOLS.filter((spec) => hasExecutor(spec.id))

  it("has an executor for every catalog tool but the host-provided ones", () => {
    const missing = BUILTIN_TOOLS.filter((spec) => !hasExecutor(spec.id)).map((spec) => spec.id)
    expect(missing.sort()).toEqual(["browser_action", "use_subagents"])
  })

  it.each(withExecutor.map((spec) => [spec.id, spec] as const))(
    "%s takes the catalog's parameter names",
    (id, spec) => {
      const shape = (EXECUTORS[id]!.schema as z.ZodObject).shape
      const fromCatalog = new Set(Object.keys(spec.parameters))
      for (const patch of Object.values(spec.variants ?? {})) {
        for (const [name, parameter] of Object.entries(patch.parameters ?? {})) if (parameter) fromCatalog.add(name)
      }
      // task_progress is accepted everywhere; the catalog offers it on most tools, not all.
      fromCatalog.add("task_progress")
      expect(Object.keys(shape).sort()).toEqual([...fromCatalog].sort())
    },
  )

  it.each(withExecutor.map((spec) => [spec.id, spec] as const))(
    "%s requires nothing the catalog leaves optional",
    (id, spec) => {
      const required = Object.entries(spec.parameters)
        .filter(([, parameter]) => parameter.required)
        .map(([name]) => name)
      const result = validateArgs(id, EXECUTORS[id]!.schema, {})
      const missing = result.ok
        ? []
        : [...result.message.matchAll(/missing required parameter '([^']+)'/g)].map((m) => m[1])
      const lenient = LENIENT[id] ?? []
      expect(missing.sort()).toEqual(required.filter((name) => !lenient.includes(name)).sort())
    },
  )
})
