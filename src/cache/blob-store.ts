/**
 * Content-addressed storage of request bodies for traces. A body is stored as a small skeleton in which
 * every top-level list (messages, tools, contents, input, system blocks) is a reference to a list node and
 * every long string a reference to a blob. A list node holds the hashes of its new items and a reference to
 * the longest stored prefix of itself, so a conversation's growing message list costs each message once:
 * a 200-turn session stores its prefix once, not 200 times. Files are written atomically (a reader sees a whole
 * file or none) but not flushed one by one: a crash may lose the newest records, never tear one.
 */
import { createHash } from "node:crypto"
import { access, readdir, readFile, rm, stat } from "node:fs/promises"
import { join } from "node:path"
import { makePrivateFolder, writeFileAtomic } from "../atomic-write.js"

/**
 * The mode of every trace file: readable by the user only, as request bodies and their keys' surroundings are
 * (folders are 0700). Files written before with another mode are narrowed when rewritten; blobs are never
 * rewritten, and their folder being 0700 keeps them private.
 */
export const TRACE_FILE_MODE = 0o600

/** A reference to a stored string or item. */
export interface BlobRef {
  $blob: string
}

/**
 * A reference to a stored list (a chain of list nodes). Cache markers (`cache_control`) move from request to
 * request, so items are stored without them and the markers ride in the reference: item index, path, value.
 */
export interface ListRef {
  $list: string
  $marks?: [number, string, unknown][]
}

const MARKER = "cache_control"

/** An item without its cache markers, and the markers (path inside the item, value). */
function withoutMarkers(item: unknown): { item: unknown; marks: [string, unknown][] } {
  const marks: [string, unknown][] = []
  const strip = (v: unknown, path: string, depth: number): unknown => {
    if (depth > 4 || v === null || typeof v !== "object") return v
    if (Array.isArray(v)) return v.map((x, i) => strip(x, `${path}${path ? "." : ""}${i}`, depth + 1))
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      if (k === MARKER) marks.push([path, x])
      else out[k] = strip(x, `${path}${path ? "." : ""}${k}`, depth + 1)
    }
    return out
  }
  const stripped = strip(item, "", 0)
  return { item: marks.length > 0 ? stripped : item, marks }
}

/** Puts a marker back at its path inside an item (keys are inserted last, where encoders put them). */
function putMarker(item: unknown, path: string, value: unknown): void {
  let at = item as Record<string, unknown>
  for (const step of path ? path.split(".") : []) at = at[step] as Record<string, unknown>
  if (at && typeof at === "object") at[MARKER] = value
}

/** One node of a stored list: the node of its prefix, and the items after it. */
interface ListNode {
  parent: string | null
  items: string[]
}

/** Strings at least this long are stored as blobs rather than inline. */
const LONG_STRING = 512

const sha = (text: string) => createHash("sha256").update(text).digest("hex")

/** The blob folder of a trace folder: `blobs/ab/abcdef….json`. */
export class BlobStore {
  /** Nodes and blobs known to exist (written or seen in this process). */
  private readonly known = new Set<string>()

  constructor(readonly dir: string) {}

  private path(hash: string): string {
    return join(this.dir, hash.slice(0, 2), `${hash}.json`)
  }

  private async has(hash: string): Promise<boolean> {
    if (this.known.has(hash)) return true
    try {
      await access(this.path(hash))
      this.known.add(hash)
      return true
    } catch {
      return false
    }
  }

  private async put(hash: string, text: string): Promise<void> {
    if (await this.has(hash)) return
    await writeFileAtomic(this.path(hash), text, { createFolders: true, durable: false, mode: TRACE_FILE_MODE })
    this.known.add(hash)
  }

  /** Stores a value's JSON once; returns its hash. */
  async putValue(value: unknown): Promise<string> {
    const text = JSON.stringify(value)
    const hash = sha(text)
    await this.put(hash, text)
    return hash
  }

  /** Stores a list as a chain of nodes sharing every prefix already stored; returns the hash of the whole list. */
  async putList(items: readonly unknown[]): Promise<string> {
    const hashes = await Promise.all(items.map((item) => this.putValue(item)))
    // Prefix hashes: p[k] names the list of the first k items.
    const prefix: string[] = [sha("list:")]
    for (const h of hashes) prefix.push(sha(`${prefix.at(-1)!}:${h}`))
    let from = hashes.length
    while (from > 0 && !(await this.has(prefix[from]!))) from--
    if (from === hashes.length) return prefix[from]!
    const node: ListNode = { parent: from > 0 ? prefix[from]! : null, items: hashes.slice(from) }
    await this.put(prefix[hashes.length]!, JSON.stringify(node))
    return prefix[hashes.length]!
  }

  /** A body as a skeleton: top-level lists and long strings become references. */
  async putBody(body: unknown): Promise<unknown> {
    if (typeof body === "string") return body.length >= LONG_STRING ? { $blob: await this.putValue(body) } : body
    if (body === null || typeof body !== "object" || Array.isArray(body)) return body
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(body)) {
      if (Array.isArray(value)) {
        const marks: [number, string, unknown][] = []
        const items = value.map((v, i) => {
          const split = withoutMarkers(v)
          for (const [path, mark] of split.marks) marks.push([i, path, mark])
          return split.item
        })
        out[key] = {
          $list: await this.putList(items),
          ...(marks.length > 0 ? { $marks: marks } : {}),
        } satisfies ListRef
      } else if (typeof value === "string" && value.length >= LONG_STRING)
        out[key] = { $blob: await this.putValue(value) } satisfies BlobRef
      else out[key] = value
    }
    return out
  }

  /** The stored value of a hash. */
  async getValue(hash: string): Promise<unknown> {
    return JSON.parse(await readFile(this.path(hash), "utf8")) as unknown
  }

  /** The items of a stored list, following its chain of prefixes. */
  async getList(hash: string): Promise<unknown[]> {
    const chain: ListNode[] = []
    for (let at: string | null = hash; at !== null && at !== sha("list:"); ) {
      const node = (await this.getValue(at)) as ListNode
      chain.push(node)
      at = node.parent
    }
    const out: unknown[] = []
    for (const node of chain.reverse()) for (const item of node.items) out.push(await this.getValue(item))
    return out
  }

  /** A body back from its skeleton. */
  async getBody(skeleton: unknown): Promise<unknown> {
    if (isRef(skeleton, "$blob")) return this.getValue(skeleton.$blob)
    if (skeleton === null || typeof skeleton !== "object" || Array.isArray(skeleton)) return skeleton
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(skeleton)) {
      if (isRef(value, "$list")) {
        const items = await this.getList(value.$list)
        for (const [i, path, mark] of (value as ListRef).$marks ?? []) putMarker(items[i], path, mark)
        out[key] = items
      } else if (isRef(value, "$blob")) out[key] = await this.getValue(value.$blob)
      else out[key] = value
    }
    return out
  }

  /** Every hash a skeleton reaches (its blobs, list nodes and their items), added to `into`. */
  async reach(skeleton: unknown, into: Set<string>): Promise<void> {
    const visit = async (v: unknown): Promise<void> => {
      if (isRef(v, "$blob")) into.add(v.$blob)
      else if (isRef(v, "$list")) {
        for (let at: string | null = v.$list; at !== null && at !== sha("list:") && !into.has(at); ) {
          into.add(at)
          const node = (await this.getValue(at)) as ListNode
          for (const item of node.items) into.add(item)
          at = node.parent
        }
      } else if (v !== null && typeof v === "object" && !Array.isArray(v))
        for (const x of Object.values(v)) await visit(x)
    }
    await visit(skeleton)
  }

  /** Deletes every stored hash not in `keep`; returns the bytes freed. */
  async sweep(keep: ReadonlySet<string>): Promise<number> {
    let freed = 0
    for (const sub of await readdir(this.dir).catch(() => [] as string[])) {
      for (const name of await readdir(join(this.dir, sub)).catch(() => [] as string[])) {
        const hash = name.replace(/\.json$/, "")
        if (keep.has(hash) || !name.endsWith(".json")) continue
        const file = join(this.dir, sub, name)
        freed += (await stat(file).catch(() => ({ size: 0 }))).size
        await rm(file, { force: true })
        this.known.delete(hash)
      }
    }
    return freed
  }

  /** Makes sure the folder exists, and that only the user may enter it. */
  async open(): Promise<void> {
    await makePrivateFolder(this.dir)
  }
}

function isRef<K extends "$blob" | "$list">(v: unknown, key: K): v is Record<K, string> {
  return typeof v === "object" && v !== null && typeof (v as Record<string, unknown>)[key] === "string"
}
