/**
 * The words of software tools that a general dictionary does not relate: the verbs tool names use for the four
 * things an API does (get, list, create, update, delete, search, run) and everyday verbs for each, and the
 * abbreviations and product words of software work. WordNet (lexicon.ts) covers the rest of the language; this
 * table is the API's half, written from how APIs name their operations, not from any server or query set.
 */
const API_VERBS: Readonly<Record<string, string>> = {
  get: "show view display see fetch retrieve read print check inspect look open",
  list: "show view display enumerate which what all browse",
  create: "make add new start open begin file submit raise register set write",
  update: "change modify edit set rename adjust alter replace patch mark move",
  delete: "remove erase drop discard destroy clear kill forget wipe purge",
  search: "find look locate lookup query seek discover where",
  run: "execute launch trigger start invoke kick",
  close: "shut quit exit stop end dismiss",
  send: "post tell notify message announce say",
  navigate: "go visit browse load open",
}

/** The verbs of API operations (get, list, create, ...): the keys of the table above. */
export const API_OPERATIONS: ReadonlySet<string> = new Set(Object.keys(API_VERBS))

/** Abbreviations and software words, and the words tool descriptions use for them. */
const SOFTWARE_WORDS: Readonly<Record<string, string>> = {
  repo: "repository",
  repos: "repository",
  project: "repository",
  folder: "directory",
  dir: "directory",
  pr: "pull request",
  prs: "pull request",
  mr: "merge request",
  bug: "issue",
  ticket: "issue",
  tickets: "issue",
  db: "database",
  k8s: "kubernetes",
  env: "environment",
  config: "configuration",
  js: "javascript",
  ts: "typescript",
  url: "link address",
  link: "url",
  account: "user",
  photo: "image",
  picture: "image screenshot",
  tab: "page",
  popup: "dialog",
  dropdown: "select option",
  container: "pod",
  cluster: "kubernetes",
  table: "sql query",
  sql: "query",
}

/** What each word stands for in tool vocabulary: API verbs for everyday verbs, expansions of abbreviations. */
export const JARGON: ReadonlyMap<string, readonly string[]> = (() => {
  const map = new Map<string, string[]>()
  const add = (word: string, targets: string[]) => map.set(word, [...(map.get(word) ?? []), ...targets])
  for (const [verb, everyday] of Object.entries(API_VERBS)) for (const w of everyday.split(" ")) add(w, [verb])
  for (const [word, targets] of Object.entries(SOFTWARE_WORDS)) add(word, targets.split(" "))
  return map
})()
