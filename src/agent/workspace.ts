import { lstat, realpath } from "node:fs/promises"
import { homedir } from "node:os"
import path from "node:path"
import { isInside } from "../context/paths.js"

/** Which folders tools may reach: the workspace root, extra read-write roots, extra read-only roots. */
export interface PathPolicy {
  root: string
  allowedRoots?: string[]
  readRoots?: string[]
  /** Home folder for `~/` paths; defaults to the OS home. */
  home?: string
}

/** A path that may be used: its absolute form, its real form, and how to show it. */
export interface AllowedPath {
  ok: true
  /** Absolute path as asked (symlinks not resolved): use it for file operations. */
  absolute: string
  /** Absolute path with every existing symlink resolved. */
  real: string
  /** Workspace-relative POSIX path when inside the workspace, the absolute POSIX path otherwise. */
  display: string
  /** Whether something exists at the path. */
  exists: boolean
}

/** A path that was refused, and why (a sentence for the model). */
export interface RefusedPath {
  ok: false
  reason: string
}

const toPosix = (p: string): string => p.split(path.sep).join("/")

export { isInside } from "../context/paths.js"

async function realOrUndefined(p: string): Promise<string | undefined> {
  try {
    return await realpath(p)
  } catch {
    return undefined
  }
}

/**
 * Resolves `p` by following the symlinks of its nearest existing ancestor, so neither `..` nor a
 * link can hide where it really leads. A dangling link or a link loop makes the path unusable.
 */
async function realPathOf(absolute: string): Promise<{ real: string; exists: boolean } | { problem: string }> {
  const tail: string[] = []
  let current = absolute
  for (;;) {
    try {
      const real = await realpath(current)
      return { real: tail.length ? path.join(real, ...tail.reverse()) : real, exists: tail.length === 0 }
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === "ELOOP") return { problem: "it goes through a loop of symbolic links" }
      if (code !== "ENOENT" && code !== "ENOTDIR") return { problem: `it cannot be resolved (${code ?? "error"})` }
      const link = await lstat(current).catch(() => undefined)
      if (link?.isSymbolicLink()) return { problem: "it goes through a symbolic link whose target does not exist" }
      const parent = path.dirname(current)
      if (parent === current) return { real: absolute, exists: false }
      tail.push(path.basename(current))
      current = parent
    }
  }
}

/**
 * Resolves a tool's path argument against the workspace and checks it stays within the roots that
 * `access` permits. Relative paths resolve against the root; `~/` against the home folder.
 */
export async function resolvePath(
  policy: PathPolicy,
  input: string,
  access: "read" | "write",
): Promise<AllowedPath | RefusedPath> {
  if (input.includes("\0")) return { ok: false, reason: `The path "${input}" contains a NUL character.` }
  const root = path.resolve(policy.root)
  const expanded = input === "~" || input.startsWith("~/") ? path.join(policy.home ?? homedir(), input.slice(1)) : input
  const absolute = path.resolve(root, expanded)
  const resolved = await realPathOf(absolute)
  if ("problem" in resolved) return { ok: false, reason: `The path "${input}" is refused: ${resolved.problem}.` }
  const rootReal = (await realOrUndefined(root)) ?? root
  const roots = [rootReal]
  for (const extra of policy.allowedRoots ?? []) roots.push((await realOrUndefined(extra)) ?? path.resolve(extra))
  if (access === "read") {
    for (const extra of policy.readRoots ?? []) roots.push((await realOrUndefined(extra)) ?? path.resolve(extra))
  }
  if (!roots.some((r) => isInside(r, resolved.real))) {
    const lexicallyInside = isInside(root, absolute) || roots.some((r) => isInside(r, absolute))
    const why = lexicallyInside
      ? "it goes through a symbolic link that leads outside the workspace"
      : "it is outside the workspace"
    const extra = access === "write" && policy.readRoots?.length ? " (extra folders outside it are read-only)" : ""
    return {
      ok: false,
      reason: `The path "${input}" is refused: ${why}${extra}. Use a path inside ${toPosix(root)}.`,
    }
  }
  const display = isInside(root, absolute) ? toPosix(path.relative(root, absolute)) || "." : toPosix(absolute)
  return { ok: true, absolute, real: resolved.real, display, exists: resolved.exists }
}

/** The POSIX form of `absolute` relative to the workspace root, or its absolute POSIX form outside it. */
export function displayPath(root: string, absolute: string): string {
  const base = path.resolve(root)
  return isInside(base, absolute) ? toPosix(path.relative(base, absolute)) || "." : toPosix(absolute)
}
