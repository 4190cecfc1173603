import { describe, expect, it } from "vitest"
import { lazyObject, lazyValue } from "./lazy-module.js"

describe("lazyValue", () => {
  it("makes the value on the first call only, and returns the same value after", () => {
    let made = 0
    const value = lazyValue(() => ({ n: ++made }))
    expect(made).toBe(0)
    const first = value()
    expect(value()).toBe(first)
    expect(made).toBe(1)
  })

  it("remembers an undefined value too", () => {
    let made = 0
    const value = lazyValue(() => {
      made++
      return undefined
    })
    value()
    value()
    expect(made).toBe(1)
  })
})

describe("lazyObject", () => {
  class Counter {
    count = 0
    add(n: number): number {
      this.count += n
      return this.count
    }
  }

  it("makes nothing until a property is read, then stands for the one value made", () => {
    let made = 0
    const counter = lazyObject(() => {
      made++
      return new Counter()
    })
    expect(made).toBe(0)
    expect(counter.count).toBe(0)
    expect(made).toBe(1)
    expect(counter.add(2)).toBe(2)
    expect(counter.count).toBe(2)
    expect(made).toBe(1)
  })

  it("binds methods to the real value, so a method taken off the stand-in still works", () => {
    const counter = lazyObject(() => new Counter())
    const add = counter.add
    expect(add(3)).toBe(3)
    expect("add" in counter).toBe(true)
    expect("missing" in counter).toBe(false)
  })
})
