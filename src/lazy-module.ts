import { createRequire } from "node:module"

const require = createRequire(import.meta.url)

/**
 * A loader for a package that a synchronous function needs but importing our module must not load:
 * the package is required on the first call, once, and the same module is returned after that.
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined
  return () => {
    loaded ??= require(specifier) as T
    return loaded
  }
}
