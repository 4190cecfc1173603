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

/** A value made on the first call, once (e.g. schemas built from a lazily loaded package). */
export function lazyValue<T>(make: () => T): () => T {
  let made: { value: T } | undefined
  return () => {
    made ??= { value: make() }
    return made.value
  }
}

/**
 * An object that stands for the value `make` returns, made on first use of any property: a module can
 * export it (e.g. a schema) without building it at import. Methods are bound to the real value.
 */
export function lazyObject<T extends object>(make: () => T): T {
  const real = lazyValue(make)
  return new Proxy({} as T, {
    get(_, key) {
      const target = real()
      const value = Reflect.get(target, key, target)
      return typeof value === "function" ? value.bind(target) : value
    },
    has: (_, key) => Reflect.has(real(), key),
  })
}
