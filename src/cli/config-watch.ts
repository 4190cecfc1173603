// Watching the config files `promptline serve` runs with, so a change is swapped in without a restart. Each file's
// folder is watched (`fs.watch`: an editor that saves by writing a new file and renaming it over the old one is seen
// too), and each file is also re-read by its status every `pollMs` (`fs.watchFile`), for the file systems where
// `fs.watch` hears nothing (network mounts, some containers). Changes that come together are heard once, after
// `debounceMs` of quiet; a change heard while the last one is being handled is handled after it; and files whose
// text is what it was when last handled are not handled again (the poll hears a save the folder watch heard).
import { type FSWatcher, readFileSync, type Stats, type StatWatcher, unwatchFile, watch, watchFile } from "node:fs"
import { basename, dirname } from "node:path"

/** Options of a config watch. */
export interface ConfigWatchOptions {
  /** Quiet time before a change is handled, in ms (default 200). */
  debounceMs?: number
  /** How often each file's status is read again, in ms (default 2 000). */
  pollMs?: number
}

/** A running watch; `close` stops it. */
export interface ConfigWatch {
  close(): void
}

/** The text of each file (or that it cannot be read), to tell a change from a file saved as it was. */
function textsOf(files: readonly string[]): string {
  return JSON.stringify(
    files.map((file) => {
      try {
        return readFileSync(file, "utf8")
      } catch {
        return null
      }
    }),
  )
}

/** Calls `changed` once after each burst of changes to any of `files` (absolute paths) that changed their text. */
export function watchConfigFiles(
  files: readonly string[],
  changed: () => Promise<void>,
  options: ConfigWatchOptions = {},
): ConfigWatch {
  const debounceMs = options.debounceMs ?? 200
  const pollMs = options.pollMs ?? 2_000
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  let again = false
  let closed = false
  let handled = textsOf(files)
  const run = () => {
    timer = undefined
    if (closed) return
    if (running) {
      again = true
      return
    }
    const now = textsOf(files)
    if (now === handled) return
    handled = now
    running = changed()
      .catch(() => {})
      .finally(() => {
        running = undefined
        if (again && !closed) {
          again = false
          run()
        }
      })
  }
  const heard = () => {
    if (closed) return
    clearTimeout(timer)
    timer = setTimeout(run, debounceMs)
    timer.unref()
  }
  const watchers: FSWatcher[] = []
  const folders = new Map<string, Set<string>>()
  for (const file of files) {
    const names = folders.get(dirname(file)) ?? new Set<string>()
    names.add(basename(file))
    folders.set(dirname(file), names)
  }
  for (const [folder, names] of folders) {
    try {
      const watcher = watch(folder, { persistent: false }, (_event, name) => {
        if (name === null || names.has(name.toString())) heard()
      })
      watcher.on("error", () => {})
      watchers.push(watcher)
    } catch {
      // A folder that cannot be watched is still polled below.
    }
  }
  const polled: { file: string; listener: (now: Stats, was: Stats) => void }[] = []
  for (const file of files) {
    const listener = (now: Stats, was: Stats) => {
      if (now.mtimeMs !== was.mtimeMs || now.size !== was.size) heard()
    }
    const stat: StatWatcher = watchFile(file, { persistent: false, interval: pollMs }, listener)
    stat.unref?.()
    polled.push({ file, listener })
  }
  return {
    close() {
      closed = true
      clearTimeout(timer)
      for (const watcher of watchers) watcher.close()
      for (const { file, listener } of polled) unwatchFile(file, listener)
    },
  }
}
