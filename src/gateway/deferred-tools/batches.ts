/**
 * An answer read through a callback (`read(each)`, as a translation reads its upstream) as an async iterable of its
 * batches, in order and as they come, for the search loop; the reader's result once it is done.
 */
import type { StreamEvent } from "../../providers/stream.js"

/** The batches `read` hands out, and what it resolved with (or why it failed, thrown at the end of the batches). */
export function batchesOf<R>(read: (each: (batch: StreamEvent[]) => void) => Promise<R>): {
  batches: AsyncIterable<StreamEvent[]>
  result: Promise<R>
} {
  const queue: StreamEvent[][] = []
  let wake: (() => void) | undefined
  let done = false
  const result = read((batch) => {
    queue.push(batch)
    wake?.()
  })
  const settled = result.then(
    () => undefined,
    (error: unknown) => ({ error }),
  )
  void settled.then(() => {
    done = true
    wake?.()
  })
  async function* batches(): AsyncGenerator<StreamEvent[]> {
    for (;;) {
      const next = queue.shift()
      if (next !== undefined) {
        yield next
        continue
      }
      if (done) break
      await new Promise<void>((resolve) => {
        wake = resolve
      })
      wake = undefined
    }
    const failed = await settled
    if (failed) throw failed.error
  }
  return { batches: batches(), result }
}
