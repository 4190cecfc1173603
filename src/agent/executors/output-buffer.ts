/**
 * Keeps the head and the tail of a byte stream within a budget, counting what falls in between.
 * Used for command output: the start shows what ran, the end shows how it ended.
 */
export class OutputBuffer {
  private readonly head: Buffer[] = []
  private headBytes = 0
  private tail: Buffer[] = []
  private tailBytes = 0
  private dropped = 0
  private readonly headLimit: number
  private readonly tailLimit: number

  constructor(limit: number) {
    this.headLimit = Math.floor(limit / 2)
    this.tailLimit = limit - this.headLimit
  }

  /** Appends a chunk. */
  push(chunk: Buffer): void {
    let rest = chunk
    if (this.headBytes < this.headLimit) {
      const take = rest.subarray(0, this.headLimit - this.headBytes)
      this.head.push(take)
      this.headBytes += take.length
      rest = rest.subarray(take.length)
    }
    if (rest.length === 0) return
    this.tail.push(rest)
    this.tailBytes += rest.length
    while (this.tailBytes > this.tailLimit) {
      const first = this.tail[0]!
      const excess = this.tailBytes - this.tailLimit
      if (first.length <= excess) {
        this.tail.shift()
        this.tailBytes -= first.length
        this.dropped += first.length
      } else {
        this.tail[0] = first.subarray(excess)
        this.tailBytes -= excess
        this.dropped += excess
      }
    }
  }

  /** Bytes left out between head and tail. */
  get omitted(): number {
    return this.dropped
  }

  /** The kept text, with a notice where bytes were left out. */
  text(): string {
    // Decode the kept bytes in one piece when nothing was dropped, so a character split across
    // the head/tail border stays whole.
    if (this.dropped === 0) return Buffer.concat([...this.head, ...this.tail]).toString("utf8")
    const head = Buffer.concat(this.head).toString("utf8")
    const tail = Buffer.concat(this.tail).toString("utf8")
    return `${head}\n\n[… ${this.dropped} bytes of output omitted; the start and the end are shown …]\n\n${tail}`
  }
}
