import type { Ajv, ErrorObject, ValidateFunction } from "ajv"
import { lazyModule } from "../../lazy-module.js"
import type { EnabledTool } from "../spec.js"

/** Ajv, required when the first checker is made. */
const ajv = lazyModule<typeof import("ajv")>("ajv")

/** The outcome of checking a call's arguments against the tool's schema. */
export type ArgumentCheck = { ok: true; value: Record<string, unknown> } | { ok: false; message: string }

/** One Ajv error in words, naming the parameter by its path. */
function describe(error: ErrorObject): string {
  const path = error.instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replaceAll("~1", "/").replaceAll("~0", "~"))
  const name =
    path.length === 0 ? undefined : path.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join("")
  if (error.keyword === "required") {
    const missing = (error.params as { missingProperty: string }).missingProperty
    return `missing required parameter '${name ? `${name}.` : ""}${missing}'`
  }
  if (error.keyword === "additionalProperties") {
    const extra = (error.params as { additionalProperty: string }).additionalProperty
    return `unknown parameter '${name ? `${name}.` : ""}${extra}'`
  }
  if (error.keyword === "enum") {
    const allowed = (error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v))
    return `parameter '${name ?? "(arguments)"}' must be one of ${allowed.join(", ")}`
  }
  return `parameter '${name ?? "(arguments)"}' ${error.message ?? "is not valid"}`
}

/**
 * Checks call arguments against tools' parameter schemas (JSON Schema, with Ajv), compiling each tool's schema
 * once. A schema Ajv cannot compile is not checked (the server judges the arguments then).
 */
export class ArgumentChecker {
  readonly #ajv: Ajv = new (ajv().Ajv)({
    strict: false,
    allErrors: true,
    validateFormats: false,
    validateSchema: false,
  })
  readonly #compiled = new WeakMap<EnabledTool, ValidateFunction | null>()

  #validatorOf(tool: EnabledTool): ValidateFunction | null {
    let validate = this.#compiled.get(tool)
    if (validate === undefined) {
      // Servers write schemas for several drafts: the root's $schema is dropped so any compiles as draft 7.
      const { $schema: _draft, ...schema } = tool.parameters
      try {
        validate = this.#ajv.compile(schema)
      } catch {
        validate = null
      }
      this.#compiled.set(tool, validate)
    }
    return validate
  }

  /**
   * Checks arguments for a tool. Arguments given as JSON text (the XML dialect) are parsed first. On failure
   * the message names every problem and repeats the schema, so the model can correct the call.
   */
  check(tool: EnabledTool, input: unknown): ArgumentCheck {
    let value = input ?? {}
    if (typeof value === "string") {
      const text = value.trim()
      try {
        value = text === "" ? {} : JSON.parse(text)
      } catch {
        return { ok: false, message: `The arguments for ${tool.name} are not valid JSON. Give them as a JSON object.` }
      }
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, message: `The arguments for ${tool.name} must be a JSON object of named parameters.` }
    }
    const validate = this.#validatorOf(tool)
    if (!validate || validate(value)) return { ok: true, value: value as Record<string, unknown> }
    const problems = [...new Set((validate.errors ?? []).map(describe))]
    return {
      ok: false,
      message: `Invalid arguments for ${tool.name}, so it was not called: ${problems.join("; ")}.\nIts parameter schema: ${JSON.stringify(tool.parameters)}`,
    }
  }
}
