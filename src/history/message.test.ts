import { describe, expect, it } from "vitest"
import { textOf } from "./message.js"

describe("textOf", () => {
  const content = [
    { type: "text" as const, text: "before" },
    { type: "image" as const, mediaType: "image/png", data: "iVBOR" },
    { type: "text" as const, text: "after" },
  ]

  it("joins text blocks by blank lines and leaves images out by default", () => {
    expect(textOf({ content })).toBe("before\n\nafter")
    expect(textOf({ content: "plain" }, { separator: "|", image: "[image]" })).toBe("plain")
  })

  it("puts the given text where each image was, with the given separator", () => {
    expect(textOf({ content }, { separator: "\n", image: "[image]" })).toBe("before\n[image]\nafter")
    expect(textOf({ content }, { separator: "\n", image: "" })).toBe("before\n\nafter")
  })
})
