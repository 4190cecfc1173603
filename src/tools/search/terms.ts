import { setBounded } from "../../bounded-map.js"
import { lazyModule } from "../../lazy-module.js"

/** The Porter2 (Snowball English) stemmer, required on first use. */
const porter2 = lazyModule<(word: string) => string>("wink-porter2-stemmer")

/** Words that say nothing about what a tool does. */
const STOP_WORDS = new Set(
  (
    "a about all an and any are as at be been being but by can could did do does doing for from had has have " +
    "he her here him his how i if in into is it its just let me might mine must my myself no not now of off on once " +
    "only or other our ours out over own please same she should so some such than that the their them then there " +
    "these they this those through to too under until up us very via want was we were what when where whether " +
    "which while who whom whose why will with would yet you your yours"
  ).split(" "),
)

/** Splits text into words: at every non-alphanumeric character and at camelCase humps. */
export function toolTerms(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
}

/** Whether a word is a stop word (in any case). */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase())
}

/**
 * The one stemmer of tool search, for tool text and queries alike: lower case, then Porter2 ("creating",
 * "created" and "creates" all give "creat"; "close", "closes" and "closing" give "close"). Stop words, single
 * characters and numbers give null: they say nothing about what a tool does.
 */
export function stemTerm(word: string): string | null {
  const w = word.toLowerCase()
  if (w.length < 2 || STOP_WORDS.has(w) || /^\d+$/.test(w)) return null
  if (!/^[a-z]+$/.test(w)) return w
  let stem = stems.get(w)
  if (stem === undefined) {
    stem = porter2()(w)
    setBounded(stems, w, stem, MAX_MEMO)
  }
  return stem
}

/** Most stems kept in the memo below; past that the oldest go first (the answer is the same either way). */
const MAX_MEMO = 20_000

/** A bounded memo of the stemmer's answers: tool text and queries repeat the same words. */
const stems = new Map<string, string>()
