import { describe, expect, it } from "vitest"
import { ClientGone } from "./reply.js"

describe("ClientGone: what tells a request's calls that its client went away", () => {
  it("calls each listener still added once, in order, when the client goes away", () => {
    const gone = new ClientGone()
    const heard: string[] = []
    const second = () => heard.push("second")
    gone.addEventListener("abort", () => heard.push("first"))
    gone.addEventListener("abort", second)
    gone.addEventListener("abort", () => heard.push("third"))
    gone.removeEventListener("abort", second)
    expect(gone.aborted).toBe(false)
    gone.abort()
    gone.abort()
    expect(gone.aborted).toBe(true)
    expect(heard).toEqual(["first", "third"])
  })

  it("tells the other listeners when one throws", () => {
    const gone = new ClientGone()
    const heard: number[] = []
    gone.addEventListener("abort", () => {
      throw new Error("could not cancel")
    })
    gone.addEventListener("abort", () => heard.push(2))
    expect(() => gone.abort()).not.toThrow()
    expect(heard).toEqual([2])
  })

  it("does not call a listener added after the client went away, as an AbortSignal does not", () => {
    const gone = new ClientGone()
    const signal = AbortSignal.abort()
    const heard: string[] = []
    gone.abort()
    gone.addEventListener("abort", () => heard.push("gone"))
    signal.addEventListener("abort", () => heard.push("signal"))
    expect(heard).toEqual([])
  })

  it("gives an AbortSignal that follows it, made before or after the client went away", () => {
    const before = new ClientGone()
    const signal = before.signal
    expect(before.signal).toBe(signal)
    expect(signal.aborted).toBe(false)
    before.abort()
    expect(signal.aborted).toBe(true)
    const after = new ClientGone()
    after.abort()
    expect(after.signal.aborted).toBe(true)
  })
})
