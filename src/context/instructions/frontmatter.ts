import { setBounded } from "../../bounded-map.js"
import { lazyModule } from "../../lazy-module.js"
import { plainFields } from "./plain-fields.js"

/** yaml, required on the first frontmatter block read. */
const yaml = lazyModule<typeof import("yaml")>("yaml")

/** A file split into its YAML frontmatter and the body the model gets. */
export interface Frontmatter {
  /** The text without frontmatter; the whole text as written when there is none or it is broken. */
  body: string
  /** The parsed fields; empty when there is no usable frontmatter. */
  data: Record<string, unknown>
  /** True when the file starts with a complete `---` block. */
  present: boolean
  /** Why the block could not be read; the body is then the text as written. */
  error?: { message: string; line: number }
}

const OPEN = /^---[ \t]*\n/
const CLOSE = /^(?:---|\.\.\.)[ \t]*$/

function lenientValue(raw: string): unknown {
  const v = raw.trim()
  if (v === "") return undefined
  if (v === "true" || v === "false") return v === "true"
  const quoted = /^(["'])(.*)\1$/.exec(v)
  return quoted ? quoted[2] : v
}

/**
 * Reads `key: value` lines without YAML's rules. Tool frontmatter is often not valid YAML
 * (Cursor writes `globs: *.ts`, where `*` starts a YAML alias), yet its meaning is plain.
 */
function lenient(block: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {}
  let listKey: string | undefined
  for (const line of block.split("\n")) {
    if (line.trim() === "" || line.trimStart().startsWith("#")) continue
    const item = /^\s+-\s*(.*)$/.exec(line) ?? /^-\s+(.*)$/.exec(line)
    if (item && listKey !== undefined) {
      const list = data[listKey] ?? []
      if (!Array.isArray(list)) return undefined
      list.push(lenientValue(item[1]!))
      data[listKey] = list
      continue
    }
    const pair = /^([A-Za-z0-9_-]+)[ \t]*:(?:[ \t]+(.*))?$/.exec(line)
    if (!pair) return undefined
    const value = lenientValue(pair[2] ?? "")
    listKey = value === undefined ? pair[1]! : undefined
    data[pair[1]!] = value
  }
  return data
}

/** What YAML made of one frontmatter block: its value, or the first error and where it is. */
type Parsed = { value: unknown } | { error: { message: string; offset: number } }

/** Blocks parsed before in this process (instruction files are read again on every gather). */
const parsedBefore = new Map<string, Parsed>()
const MAX_PARSED = 512
const MAX_PARSED_BLOCK = 16 * 1024

/**
 * Parses a frontmatter block: plain one-line fields without YAML (same result, see plain-fields.ts), anything
 * else with YAML, where an equal block parsed before gives a copy of that answer.
 */
function parseBlock(block: string): Parsed {
  const plain = plainFields(block)
  if (plain) return { value: plain }
  const known = parsedBefore.get(block)
  if (known) return "value" in known ? { value: structuredClone(known.value) } : known
  let parsed: Parsed
  const doc = yaml().parseDocument(block, { prettyErrors: false, uniqueKeys: false })
  const first = doc.errors[0]
  if (first) parsed = { error: { message: first.message, offset: first.pos[0] } }
  else {
    try {
      parsed = { value: doc.toJS() }
    } catch (error) {
      // e.g. an alias with no anchor: `globs: *.ts`
      parsed = { error: { message: (error as Error).message, offset: 0 } }
    }
  }
  if (block.length <= MAX_PARSED_BLOCK) {
    setBounded(parsedBefore, block, "value" in parsed ? { value: structuredClone(parsed.value) } : parsed, MAX_PARSED)
  }
  return parsed
}

/** Splits YAML frontmatter off a text; unparsable frontmatter leaves the text as written, with an error. */
export function splitFrontmatter(text: string): Frontmatter {
  const open = OPEN.exec(text)
  if (!open) return { body: text, data: {}, present: false }
  const lines = text.slice(open[0].length).split("\n")
  const end = lines.findIndex((line) => CLOSE.test(line))
  if (end < 0) return { body: text, data: {}, present: false }
  const block = lines.slice(0, end).join("\n")
  const body = lines
    .slice(end + 1)
    .join("\n")
    .replace(/^\n+/, "")
  const parsed = parseBlock(block)
  const yamlError = "error" in parsed ? parsed.error : undefined
  if ("value" in parsed) {
    const { value } = parsed
    if (value === null || value === undefined) return { body, data: {}, present: true }
    if (typeof value === "object" && !Array.isArray(value)) {
      return { body, data: value as Record<string, unknown>, present: true }
    }
  }
  const loose = lenient(block)
  if (loose) return { body, data: loose, present: true }
  // The block starts on the file's second line.
  const line = yamlError ? block.slice(0, yamlError.offset).split("\n").length + 1 : 2
  return {
    body: text,
    data: {},
    present: true,
    error: {
      message: yamlError ? yamlError.message.split("\n")[0]! : "the frontmatter is not a list of `key: value` fields",
      line,
    },
  }
}
