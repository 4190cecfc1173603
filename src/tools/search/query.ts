import { lookUpWord, type PartOfSpeech } from "./lexicon.js"
import { isStopWord, stemTerm, toolTerms } from "./terms.js"

/** One content word of a query: as written, its stem, and the part of speech it most likely has there. */
export interface QueryWord {
  word: string
  stem: string
  /** How the word is used in the query, when the lexicon knows it: a verb (the task) or a noun (its object). */
  role?: PartOfSpeech
}

/** Words that, before the task's verb, only say that a task follows ("can you please", "I need to"). */
const LEAD_INS = new Set("i we need needs like let help try going also just then first".split(" "))

/** The extension of a file or host name in a query ("old.txt", "example.com"): a fragment, not a task word. */
const FILE_EXTENSION = /([A-Za-z0-9_])\.[A-Za-z][A-Za-z0-9]{0,4}\b/g

/** A word that mixes letters and digits ("abc123", "4f2e1a", "v2"): an identifier, unless a tool uses it. */
export function isIdentifier(word: string): boolean {
  return /\d/.test(word) && /[a-z]/i.test(word)
}

/**
 * The content words of a query and their roles. Stop words, numbers, single characters and the extensions of
 * file names are dropped. The
 * task's verb is the first word the lexicon knows as a verb when it opens the query (after lead-ins such as "please"
 * or "I need to") or follows "to"; "file a bug" reads `file` as a verb and `bug` as a noun. Other words are nouns
 * when the lexicon knows them as nouns, else verbs.
 */
export function analyzeQuery(query: string): QueryWord[] {
  const words = toolTerms(query.replace(FILE_EXTENSION, "$1 "))
  const out: QueryWord[] = []
  let opening = true
  for (const [i, word] of words.entries()) {
    const lower = word.toLowerCase()
    const afterTo = i > 0 && words[i - 1]!.toLowerCase() === "to"
    const stem = stemTerm(word)
    if (stem === null) {
      if (!isStopWord(lower)) opening = false
      continue
    }
    if (LEAD_INS.has(lower)) continue
    const entry = lookUpWord(lower)?.entry
    let role: PartOfSpeech | undefined
    if (entry?.v && (opening || afterTo)) role = "v"
    else if (entry?.n) role = "n"
    else if (entry?.v) role = "v"
    opening = false
    out.push({ word: lower, stem, ...(role ? { role } : {}) })
  }
  return out
}
