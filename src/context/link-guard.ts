import { resolve } from "node:path"
import { type Diagnostic, diagnostic } from "../diagnostics.js"
import type { DirCache } from "./dir-cache.js"
import { isInside, realPath, toPosix } from "./paths.js"
import { userConfigFolders } from "./user-roots.js"

/** Where a file the workspace or the user names leads: the real path to read, or why it is refused. */
export type LinkCheck =
  | {
      ok: true
      real: string
      /** True when the gather's listings show the path does not exist: there is nothing to read. */
      missing?: true
    }
  | {
      ok: false
      /** The real path the symbolic link leads to (POSIX form). */
      target: string
      /** Why it is refused, in words, for a report entry. */
      reason: string
    }

/** What `#resolve` gives for a path the listings show to be absent. */
const MISSING = Symbol("missing")

/**
 * Refuses files whose symbolic links lead out of the place they belong to: a project file out of the
 * workspace, a user file out of the user's config folders. The one check every reader in context/ uses.
 * Holds the real paths of those places, resolved once.
 */
export class LinkGuard {
  readonly #places = new Map<"user" | "project", string[]>()
  /** Per path: its real path, or `missing` when the listings show it absent, or undefined when unresolved. */
  readonly #reals = new Map<string, string | typeof MISSING | undefined>()

  /**
   * `workspace` is the workspace root (real path); user folders follow from `home` and `env`. With `dirs`, a
   * path that the gather's listings show to be absent, or to have no link on the way down from the workspace,
   * is not asked of the disk.
   */
  constructor(
    private readonly workspace: string,
    private readonly home: string,
    private readonly env: Record<string, string | undefined>,
    private readonly dirs?: DirCache,
  ) {}

  #placesOf(scope: "user" | "project"): string[] {
    let places = this.#places.get(scope)
    if (!places) {
      const given = scope === "project" ? [this.workspace] : userConfigFolders(this.home, this.env)
      // A place that is itself a link (a dotfiles checkout) is also allowed where it leads.
      places = given.flatMap((p) => [p, realPath(p) ?? p])
      this.#places.set(scope, places)
    }
    return places
  }

  /**
   * The real path of `abs`, or undefined when it cannot be resolved. Asked of the disk once per path: the
   * repeat check and the link check of one gather see the same answer.
   */
  async real(abs: string): Promise<string | undefined> {
    const real = this.#resolved(abs)
    return real === MISSING ? undefined : real
  }

  /**
   * The real path of `abs`, resolved once per path; from the listings when they show it (absent, or no link
   * on the way down from the workspace).
   */
  #resolved(abs: string): string | typeof MISSING | undefined {
    if (this.#reals.has(abs)) return this.#reals.get(abs)
    const real =
      this.dirs?.absent(abs) === true
        ? MISSING
        : this.dirs?.linkFree(this.workspace, abs) === true
          ? resolve(abs)
          : realPath(abs)
    this.#reals.set(abs, real)
    return real
  }

  /**
   * Where `abs` leads. A path that cannot be resolved is returned as given, for the reader to report (marked
   * `missing` when the listings show it absent); a path with no link on the way is never refused.
   */
  async check(abs: string, scope: "user" | "project"): Promise<LinkCheck> {
    const real = this.#resolved(abs)
    if (real === MISSING) return { ok: true, real: abs, missing: true }
    if (real === undefined) return { ok: true, real: abs }
    if (real === resolve(abs)) return { ok: true, real }
    const places = this.#placesOf(scope)
    if (places.some((p) => isInside(p, real))) return { ok: true, real }
    const where = scope === "project" ? "the workspace" : "the user's config folders"
    const target = toPosix(real)
    return { ok: false, target, reason: `a symbolic link to ${target}, outside ${where}; not read` }
  }
}

/** The warning for a refused link: names the file (its display path) and where the link leads. */
export function linkDiagnostic(refused: { reason: string }, path: string): Diagnostic {
  return diagnostic("warning", "link-outside", `refused: ${refused.reason}`, { path })
}
