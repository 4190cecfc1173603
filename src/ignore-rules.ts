/**
 * Reading ignore files (`.gitignore`, `.ignore`) the way git matches their rules. Git matches a rule with no
 * slash in it (a trailing one aside) against the last part of a path only, at any depth below the file's
 * folder. The `ignore` package, given a whole path, first asks about every folder on it and answers with its
 * own verdict on an ignored one, even when a deeper ignore file takes that folder back; asked with the name
 * alone, a file of such rules answers as git does (and the package remembers the answer for every folder
 * with an entry of that name).
 */

/**
 * Whether a rule line matches an entry by its name alone: no `/` once a line end's CR, a leading `!`, trailing
 * spaces and one trailing `/` are set aside.
 */
export function matchesByName(line: string): boolean {
  const body = line.replace(/\r$/, "").replace(/^!/, "").replace(/ +$/, "").replace(/\/$/, "")
  return body !== "" && !body.includes("/")
}

/** Whether a rule line is one (neither blank nor a comment). */
export function isRule(line: string): boolean {
  return line.trim() !== "" && !line.startsWith("#")
}

/** Whether every rule of an ignore file's text matches by name (true for a text without rules). */
export function allMatchByName(text: string): boolean {
  return text.split("\n").filter(isRule).every(matchesByName)
}

/**
 * What to ask an ignore file's rules about an entry: its name when every rule matches by name, else its path
 * below the file's folder (POSIX; "" for an entry of that folder itself); a folder with a trailing slash.
 */
export function ruleSubject(byName: boolean, below: string, name: string, isDir: boolean): string {
  return (byName || below === "" ? name : `${below}/${name}`) + (isDir ? "/" : "")
}
