/**
 * Byte-pair merging of one long pre-token piece in O(m log m) for m bytes, with the same result as
 * gpt-tokenizer's merge loop (which rescans and splices the whole piece per merge: O(m²)).
 *
 * The reference merges, again and again, the adjacent pair of parts whose joined bytes have the lowest
 * rank, the leftmost one on ties, and stops when no adjacent pair is a token. Here the parts are a linked
 * list over byte offsets and the candidate pairs sit in a queue ordered by (rank, offset of the left part)
 * (`PairQueue`), so the first pair taken is exactly the reference's choice; a merge changes only the pair it
 * makes and the pair before it, which are pushed again under a new stamp (older entries are skipped).
 */

const PAIR_SLOTS = 1 << 16
const PAIR_SLOTS_MASK = PAIR_SLOTS - 1

/** Bytes → rank lookup of one encoding, mirroring gpt-tokenizer's lookup rules. */
export class RankTable {
  /** Latin-1 string of a token's bytes → its rank (unreachable entries left out, see `from`). */
  private readonly byBytes = new Map<string, number>()
  /** A token's bytes as a Latin-1 string, by rank. */
  private readonly bytesOf: string[] = []
  /** Recent pairs: left rank, right rank, merged rank (−1: not a token), by slot. */
  private readonly pairs = new Int32Array(PAIR_SLOTS * 3).fill(-1)
  /** Rank of each single byte. */
  readonly byteRank = new Int32Array(256)

  private constructor(ranks: readonly (string | readonly number[] | undefined)[]) {
    const strict = new TextDecoder("utf-8", { fatal: true })
    ranks.forEach((entry, rank) => {
      if (entry === undefined) return
      let key: string
      if (typeof entry === "string") key = ASCII.test(entry) ? entry : Buffer.from(entry, "utf8").toString("latin1")
      else {
        key = Buffer.from(entry).toString("latin1")
        // gpt-tokenizer looks valid UTF-8 up among text entries only, so byte entries that are valid UTF-8
        // (a few starting with a byte-order mark) can never be found; leaving them out keeps the same result.
        if (isStrictUtf8(strict, Uint8Array.from(entry))) {
          this.bytesOf[rank] = key
          return
        }
      }
      this.byBytes.set(key, rank)
      this.bytesOf[rank] = key
    })
    for (let b = 0; b < 256; b++) {
      const rank = this.lookup(String.fromCharCode(b))
      if (rank === undefined) throw new Error(`encoding has no token for byte ${b}`)
      this.byteRank[b] = rank
    }
  }

  /** Builds the table of an encoding from gpt-tokenizer's rank list (index = rank). */
  static from(ranks: readonly (string | readonly number[] | undefined)[]): RankTable {
    return new RankTable(ranks)
  }

  /**
   * Rank of a byte string, or undefined. gpt-tokenizer decodes valid UTF-8 with a decoder that drops a
   * leading byte-order mark before looking it up, so a key starting with EF BB BF is looked up without it.
   */
  lookup(key: string): number | undefined {
    if (key.charCodeAt(0) === 0xef && key.charCodeAt(1) === 0xbb && key.charCodeAt(2) === 0xbf) {
      const bytes = Buffer.from(key, "latin1")
      if (isStrictUtf8(new TextDecoder("utf-8", { fatal: true }), bytes)) return this.byBytes.get(key.slice(3))
    }
    return this.byBytes.get(key)
  }

  /** Rank of the token made of token `left` followed by token `right`, or −1. */
  pair(left: number, right: number): number {
    // A direct-mapped cache in front of the byte-string lookup (runs and repeated words hit it).
    const slot = ((left * 31 + right) & PAIR_SLOTS_MASK) * 3
    const cache = this.pairs
    if (cache[slot] === left && cache[slot + 1] === right) return cache[slot + 2]!
    const rank = this.lookup((this.bytesOf[left] ?? "") + (this.bytesOf[right] ?? "")) ?? -1
    cache[slot] = left
    cache[slot + 1] = right
    cache[slot + 2] = rank
    return rank
  }
}

/** Text whose UTF-8 bytes read as Latin-1 are the text itself. */
const ASCII = /^[\x00-\x7f]*$/

function isStrictUtf8(decoder: { decode(bytes: Uint8Array): string }, bytes: Uint8Array): boolean {
  try {
    decoder.decode(bytes)
    return true
  } catch {
    return false
  }
}

/** Number of tokens byte-pair merging makes of `bytes` (one pre-token piece), exactly as gpt-tokenizer. */
export function mergeCount(bytes: Uint8Array, table: RankTable): number {
  const n = bytes.length
  if (n <= 1) return n
  const token = new Int32Array(n)
  const next = new Int32Array(n)
  const prev = new Int32Array(n)
  /** Stamp of the pair starting at each part; −1 once the part was merged into its left neighbour. */
  const stamp = new Int32Array(n)
  const queue = new PairQueue()
  const offer = (left: number): void => {
    const right = next[left]!
    if (right >= n) return
    const rank = table.pair(token[left]!, token[right]!)
    if (rank >= 0) queue.push(rank, left, stamp[left]!)
  }
  for (let i = 0; i < n; i++) {
    token[i] = table.byteRank[bytes[i]!]!
    next[i] = i + 1
    prev[i] = i - 1
  }
  for (let i = 0; i < n - 1; i++) offer(i)

  let parts = n
  while (queue.take()) {
    const { rank, left } = queue
    if (stamp[left] !== queue.stamp) continue
    const right = next[left]!
    token[left] = rank
    const after = next[right]!
    next[left] = after
    if (after < n) prev[after] = left
    stamp[right] = -1
    parts--
    stamp[left]!++
    offer(left)
    const before = prev[left]!
    if (before >= 0) {
      stamp[before]!++
      offer(before)
    }
  }
  return parts
}

/**
 * Candidate pairs by (rank, left offset): one bucket per rank, ranks in a small heap. A bucket holds the
 * pairs pushed in offset order as a plain array (the common case: the first pass pushes every pair from left
 * to right) and the rest in a heap by offset, so that long runs are read in order instead of through one big
 * heap. A merge never adds a pair of its own rank (the new pairs hold the merged token plus more bytes).
 */
class PairQueue {
  private readonly buckets = new Map<number, Bucket>()
  private readonly ranks = new PairHeap(64)
  /** The pair `take` found. */
  rank = 0
  left = 0
  stamp = 0

  push(rank: number, left: number, stamp: number): void {
    let bucket = this.buckets.get(rank)
    if (!bucket) {
      bucket = new Bucket()
      this.buckets.set(rank, bucket)
      this.ranks.push(rank, 0, 0)
    }
    bucket.push(left, stamp)
  }

  /** Moves the lowest pair (leftmost on ties) into `rank`, `left`, `stamp`; false when none is left. */
  take(): boolean {
    while (this.ranks.size > 0) {
      const rank = this.ranks.rank[0]!
      const bucket = this.buckets.get(rank)!
      if (bucket.take()) {
        this.rank = rank
        this.left = bucket.left
        this.stamp = bucket.stamp
        return true
      }
      this.buckets.delete(rank)
      this.ranks.pop()
    }
    return false
  }
}

/** The pairs of one rank: an array in offset order plus a heap for pairs pushed out of order. */
class Bucket {
  private lefts = new Int32Array(8)
  private stamps = new Int32Array(8)
  private head = 0
  private tail = 0
  private late: PairHeap | undefined
  left = 0
  stamp = 0

  push(left: number, stamp: number): void {
    if (this.tail > this.head && left < this.lefts[this.tail - 1]!) {
      this.late ??= new PairHeap(8)
      this.late.push(0, left, stamp)
      return
    }
    if (this.tail === this.lefts.length) {
      // Drop what was read, then grow if still full.
      const live = this.tail - this.head
      const size = live * 2 >= this.lefts.length ? this.lefts.length * 2 : this.lefts.length
      const lefts = new Int32Array(size)
      lefts.set(this.lefts.subarray(this.head, this.tail))
      const stamps = new Int32Array(size)
      stamps.set(this.stamps.subarray(this.head, this.tail))
      this.lefts = lefts
      this.stamps = stamps
      this.head = 0
      this.tail = live
    }
    this.lefts[this.tail] = left
    this.stamps[this.tail++] = stamp
  }

  take(): boolean {
    const late = this.late !== undefined && this.late.size > 0 ? this.late : undefined
    if (this.head < this.tail && (late === undefined || this.lefts[this.head]! < late.left[0]!)) {
      this.left = this.lefts[this.head]!
      this.stamp = this.stamps[this.head++]!
      return true
    }
    if (late === undefined) return false
    this.left = late.left[0]!
    this.stamp = late.stamp[0]!
    late.pop()
    return true
  }
}

/** A binary min-heap of candidate pairs ordered by (rank, left offset), in typed arrays. */
class PairHeap {
  rank: Int32Array
  left: Int32Array
  stamp: Int32Array
  size = 0

  constructor(capacity: number) {
    this.rank = new Int32Array(capacity)
    this.left = new Int32Array(capacity)
    this.stamp = new Int32Array(capacity)
  }

  push(rank: number, left: number, stamp: number): void {
    if (this.size === this.rank.length) this.grow()
    const ranks = this.rank
    const lefts = this.left
    const stamps = this.stamp
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      const pr = ranks[parent]!
      if (pr < rank || (pr === rank && lefts[parent]! < left)) break
      ranks[i] = pr
      lefts[i] = lefts[parent]!
      stamps[i] = stamps[parent]!
      i = parent
    }
    ranks[i] = rank
    lefts[i] = left
    stamps[i] = stamp
  }

  /** Removes the minimum (read it from index 0 first). */
  pop(): void {
    const ranks = this.rank
    const lefts = this.left
    const stamps = this.stamp
    const last = --this.size
    const rank = ranks[last]!
    const left = lefts[last]!
    const stamp = stamps[last]!
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= last) break
      if (child + 1 < last) {
        const a = ranks[child + 1]!
        const b = ranks[child]!
        if (a < b || (a === b && lefts[child + 1]! < lefts[child]!)) child++
      }
      const cr = ranks[child]!
      if (cr > rank || (cr === rank && lefts[child]! > left)) break
      ranks[i] = cr
      lefts[i] = lefts[child]!
      stamps[i] = stamps[child]!
      i = child
    }
    ranks[i] = rank
    lefts[i] = left
    stamps[i] = stamp
  }

  private grow(): void {
    const widen = (a: Int32Array) => {
      const b = new Int32Array(a.length * 2)
      b.set(a)
      return b
    }
    this.rank = widen(this.rank)
    this.left = widen(this.left)
    this.stamp = widen(this.stamp)
  }
}
