import { JARGON } from "./jargon.js"
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

/** Words that follow a verb as its object or the object's determiner ("shift it", "pick the", "save this"). */
const OBJECT_OPENERS = new Set("a an the my our your his her its their this that these those it them me us".split(" "))

/** Subjects and auxiliaries: the word after one states what is done ("did I change", "can you show"). */
const BEFORE_VERB = new Set("i we you they he she did do does can could should would will must might".split(" "))

/**
 * Question words. Those that jargon.ts maps to an API operation ("which", "what" → list; "where" → search) are
 * read as the task's verb although they are stop words: "where are the png files" asks for a search.
 */
const QUESTION_WORDS = new Set("what which where who when why how".split(" "))

/** A participle's ending ("finished", "running"). */
const PARTICIPLE = /(?:ed|ing)$/

/** Words that open a new clause, after which a verb may again state a task ("..., and then shift it"). */
const CLAUSE_OPENERS = new Set("and or but so then".split(" "))

/** Where a query's clauses end: punctuation that separates sentences or clauses. */
const CLAUSE_END = /[,;:.!?]+(?:\s|$)/

/**
 * The things a query names by their form rather than by a word, and the word a tool's text uses for each: a web
 * address, an e-mail address, a file's path or name (the last part has an extension that is not a web domain's:
 * "src/app.ts", "notes.txt", ".env.example"). The word is added to the query; the name's own words stay (they may name what the file is).
 */
const NAMED_THINGS: readonly { form: RegExp; word: string }[] = [
  { form: /\bhttps?:\/\/\S+/i, word: "url" },
  { form: /[\w.+-]+@[\w-]+\.[\w.-]+/, word: "email" },
  {
    form: /(?:^|\s)\.?[\w-]+(?:[/\\][\w.-]+)*\.(?!(?:com|org|net|io|dev|ai|app|co|edu|gov)\b)[A-Za-z]\w{0,9}\b/,
    word: "file",
  },
]

/** The extension of a file or host name in a query ("old.txt", "example.com"): a fragment, not a task word. */
const FILE_EXTENSION = /([A-Za-z0-9_])\.[A-Za-z][A-Za-z0-9]{0,4}\b/g

/** A word that mixes letters and digits ("abc123", "4f2e1a", "v2"): an identifier, unless a tool uses it. */
export function isIdentifier(word: string): boolean {
  return /\d/.test(word) && /[a-z]/i.test(word)
}

/**
 * The content words of a query and their roles. Stop words, numbers, single characters and the extensions of
 * file names are dropped. A word the lexicon knows as a verb is read as one (the task) where a task's verb stands:
 * opening a clause (the query, or after a comma, "and", "so"; lead-ins such as "please" or "I need to" skipped),
 * after "to", a subject or an auxiliary ("did I change"), or before an object's determiner or pronoun ("shift
 * it", "swap the word"); "file a bug" reads `file` as a verb and `bug` as a noun. A participle of a verb the
 * lexicon knows ("finished", "running") is read as that verb. Other words are nouns when the lexicon knows them as nouns, else verbs.
 * A question word that asks for an API operation ("which", "what", "where") is kept as a verb, though a stop word.
 */
export function analyzeQuery(query: string): QueryWord[] {
  const out: QueryWord[] = []
  for (const clause of query.replace(FILE_EXTENSION, "$1 ").split(CLAUSE_END)) {
    const words = toolTerms(clause)
    let opening = true
    for (const [i, word] of words.entries()) {
      const lower = word.toLowerCase()
      const before = i > 0 ? words[i - 1]!.toLowerCase() : ""
      const stem = stemTerm(word)
      if (stem === null) {
        // A stop word is never indexed, so a question word counts only through the operation it asks for.
        if (QUESTION_WORDS.has(lower) && JARGON.has(lower)) out.push({ word: lower, stem: lower, role: "v" })
        if (!isStopWord(lower)) opening = false
        if (CLAUSE_OPENERS.has(lower)) opening = true
        continue
      }
      if (LEAD_INS.has(lower)) continue
      const found = lookUpWord(lower)
      const entry = found?.entry
      const next = words[i + 1]?.toLowerCase() ?? ""
      const verbPlace = opening || before === "to" || BEFORE_VERB.has(before) || OBJECT_OPENERS.has(next)
      // A participle whose base form is the lexicon's word ("finished", "running"): that verb, not its noun.
      const participle = found !== undefined && found.lemma !== lower && PARTICIPLE.test(lower)
      let role: PartOfSpeech | undefined
      if (entry?.v && (verbPlace || participle)) role = "v"
      else if (entry?.n) role = "n"
      else if (entry?.v) role = "v"
      opening = false
      out.push({ word: lower, stem, ...(role ? { role } : {}) })
    }
  }
  for (const word of NAMED_THINGS.filter((t) => t.form.test(query)).map((t) => t.word)) {
    out.push({ word, stem: stemTerm(word)!, ...(lookUpWord(word)?.entry.n ? { role: "n" as const } : {}) })
  }
  return out
}
