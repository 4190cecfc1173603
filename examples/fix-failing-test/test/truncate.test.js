import assert from "node:assert/strict"
import { test } from "node:test"
import { truncateWords } from "../src/truncate.js"

test("keeps short text whole", () => {
  assert.equal(truncateWords("one two", 5), "one two")
})

test("cuts long text and marks the cut", () => {
  assert.equal(truncateWords("one two three four", 2), "one two…")
})
