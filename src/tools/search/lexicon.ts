import { lazyValue } from "../../lazy-module.js"
import { LEXICON_LINES } from "./lexicon-data.js"

/** A part of speech the lexicon knows. */
export type PartOfSpeech = "n" | "v"

/** One sense of a word: its synonyms, and (a verb's first sense) the verbs it is a kind of. */
export interface WordSense {
  synonyms: readonly string[]
  broader: readonly string[]
}

/** A word's senses per part of speech, most used first. */
export type WordEntry = Partial<Record<PartOfSpeech, readonly WordSense[]>>

/** The lexicon (lexicon-data.ts, derived from WordNet), parsed on first use. */
const lexicon = lazyValue(() => {
  const map = new Map<string, WordEntry>()
  for (const line of LEXICON_LINES.split("\n")) {
    const [word, pos, senses = ""] = line.split(" ") as [string, PartOfSpeech, string?]
    const entry = map.get(word) ?? {}
    entry[pos] = senses.split("|").map((sense) => {
      const [same = "", broader = ""] = sense.split(">")
      return { synonyms: same ? same.split(",") : [], broader: broader ? broader.split(",") : [] }
    })
    map.set(word, entry)
  }
  return map
})

/**
 * The lexicon's entry for a word as written in a query: the word itself, else the base form WordNet's rules for
 * English endings give ("closing" → close, "files" → file, "copies" → copy, "stopped" → stop), else nothing.
 */
export function lookUpWord(word: string): { lemma: string; entry: WordEntry } | undefined {
  const w = word.toLowerCase()
  const map = lexicon()
  for (const lemma of baseForms(w)) {
    const entry = map.get(lemma)
    if (entry) return { lemma, entry }
  }
  return undefined
}

/** The word, then the forms its ending may have come from, most likely first. */
export function baseForms(w: string): string[] {
  const out = [w]
  const cut = (suffix: string, ...ends: string[]) => {
    if (w.length > suffix.length + 1 && w.endsWith(suffix))
      for (const e of ends) out.push(w.slice(0, -suffix.length) + e)
  }
  cut("ies", "y")
  cut("es", "", "e")
  cut("s", "")
  cut("ied", "y")
  cut("ed", "", "e")
  cut("ing", "", "e")
  // A doubled consonant before -ed or -ing ("stopped", "running").
  const doubled = /([b-df-hj-np-tv-z])\1(ed|ing)$/.exec(w)
  if (doubled) out.push(w.slice(0, -(doubled[2]!.length + 1)))
  return out
}
