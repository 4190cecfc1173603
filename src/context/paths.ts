import { realpathSync } from "node:fs"
import { isAbsolute, posix, relative, resolve, sep } from "node:path"

/** Converts a native path to POSIX separators. */
export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/")
}

/**
 * True when `child` is `parent` or lies inside it (both absolute, native form). A name that only starts with two
 * dots (`..cache`) is inside; only `..` itself as the first segment leads out.
 */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/** How a gathered file is named in the context and reports: relative to cwd, or `~/...` under home. */
export function displayPath(abs: string, cwd: string, home: string, scope: "user" | "project"): string {
  if (scope === "user" && isInside(home, abs)) {
    const rel = toPosix(relative(home, abs))
    return rel === "" ? "~" : `~/${rel}`
  }
  const rel = toPosix(relative(cwd, abs))
  return rel === "" ? "." : rel
}

/** The folders from `top` down to `bottom` inclusive (bottom must be inside top), general first. */
export function foldersBetween(top: string, bottom: string): string[] {
  const out: string[] = [top]
  const rel = relative(top, bottom)
  if (rel === "") return out
  let current = top
  for (const part of rel.split(sep)) {
    current = resolve(current, part)
    out.push(current)
  }
  return out
}

/**
 * `join(folder, name)` for a normalized absolute folder and a name read from its listing (one path segment):
 * the same path, without `join`'s normalizing pass over all of it (a walk makes one per folder).
 */
export function entryPath(folder: string, name: string): string {
  return folder.endsWith(sep) ? folder + name : folder + sep + name
}

/** Resolves a touched path (absolute, or relative to cwd) to POSIX form relative to cwd. */
export function relativeToCwd(path: string, cwd: string): string {
  const p = toPosix(path)
  if (posix.isAbsolute(p)) return posix.relative(toPosix(cwd), p) || "."
  return posix.normalize(p)
}

/** Byte-wise comparison of strings, independent of locale. */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/**
 * The real path of `abs`, or undefined when it cannot be resolved. Synchronous (the C library's `realpath`):
 * a few path lookups cost less than the same call through the thread pool and a promise costs the main thread.
 */
export function realPath(abs: string): string | undefined {
  try {
    return realpathSync.native(abs)
  } catch {
    return undefined
  }
}
