import { PromptlineError } from "./errors.js"

/** An optional peer dependency, and the entry point of the package that loads it. */
export interface OptionalPeer {
  /** The package name, as in `peerDependencies`. */
  name: string
  /** The versions supported, as in `peerDependencies`. */
  range: string
  /** The entry point that needs it, such as `promptline/ai-sdk`. */
  entry: string
}

/**
 * Loads an optional peer with `load`. When the package itself is not installed, throws a `PromptlineError`
 * (`peer-missing`) naming it, its versions and the command that installs it; any other failure (one of the
 * package's own dependencies missing, an error while it loads) is rethrown as it is.
 */
export async function loadOptionalPeer<T>(peer: OptionalPeer, load: () => Promise<T>): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (!isMissingPackage(error, peer.name)) throw error
    throw new PromptlineError(
      "peer-missing",
      `${peer.entry} needs the \`${peer.name}\` package (${peer.range}): npm install ${peer.name}`,
      { cause: error },
    )
  }
}

/** Whether `error` is Node's "cannot find package" for `name` itself, not for a package it imports. */
function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== "ERR_MODULE_NOT_FOUND" || typeof message !== "string") return false
  return message.startsWith(`Cannot find package '${name}' `)
}
