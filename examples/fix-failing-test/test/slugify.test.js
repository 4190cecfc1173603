import assert from "node:assert/strict"
import { test } from "node:test"
import { slugify } from "../src/slugify.js"

test("joins lowercase words with dashes", () => {
  assert.equal(slugify("Hello World"), "hello-world")
})

test("drops accents", () => {
  assert.equal(slugify("Crème brûlée"), "creme-brulee")
})

test("trims separators at both ends", () => {
  assert.equal(slugify("  Hello, World!  "), "hello-world")
})
