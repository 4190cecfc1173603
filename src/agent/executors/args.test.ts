import { describe, expect, it } from "vitest"
import { z } from "zod"
import { booleanArg, objectArg, positiveIntArg, stringListArg, validateArgs } from "./args.js"

const schema = z.object({
  n: positiveIntArg,
  b: booleanArg.optional(),
  list: stringListArg.optional(),
  obj: objectArg.optional(),
})

describe("validateArgs", () => {
  it("accepts typed JSON and the text forms the XML dialect produces", () => {
    expect(validateArgs("t", schema, { n: 3, b: true, list: ["a"], obj: { x: 1 } })).toEqual({
      ok: true,
      value: { n: 3, b: true, list: ["a"], obj: { x: 1 } },
    })
    expect(validateArgs("t", schema, { n: " 3 ", b: "False", list: '["a","b"]', obj: '{"x":1}' })).toEqual({
      ok: true,
      value: { n: 3, b: false, list: ["a", "b"], obj: { x: 1 } },
    })
  })

  it("names each bad parameter", () => {
    const r = validateArgs("t", schema, { n: 0, b: "maybe", list: "[1]", obj: "[]" })
    expect(r).toEqual({
      ok: false,
      message:
        "Invalid arguments for t: parameter 'n': must be at least 1; parameter 'b': expected true or false; parameter 'list[0]': Invalid input: expected string, received number; parameter 'obj': expected a JSON object.",
    })
  })

  it("treats missing input as an empty object and rejects non-objects", () => {
    expect(validateArgs("t", schema, undefined)).toEqual({
      ok: false,
      message: "Invalid arguments for t: missing required parameter 'n'.",
    })
    expect(validateArgs("t", schema, "n=1")).toEqual({
      ok: false,
      message: "Invalid arguments for t: expected an object of named parameters.",
    })
  })
})
