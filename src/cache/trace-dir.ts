/** Where traces go when neither a flag nor the config names a folder: `traces/` in promptline's user cache folder. */
import { join } from "node:path"
import { promptlineCacheDir } from "../context/user-roots.js"

/** The default trace folder. */
export function defaultTraceDir(home: string, env: Record<string, string | undefined>): string {
  return join(promptlineCacheDir(home, env), "traces")
}
