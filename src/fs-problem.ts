/** Plain words for the file system errors a person meets when a path is wrong. */
const WORDS: Record<string, string> = {
  ENOENT: "it does not exist",
  ENOTDIR: "a part of its path is a file, not a folder",
  EISDIR: "it is a folder, not a file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  ELOOP: "its symbolic links go round in a loop",
  ENAMETOOLONG: "the name is too long",
}

/** A file system error in plain words ("it does not exist"), or its message when it is of another kind. */
export function fsProblem(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  if (code && WORDS[code]) return WORDS[code]
  return error instanceof Error ? error.message : String(error)
}
