import { readFile } from "node:fs/promises"
import { homedir, release } from "node:os"
import { toPosix } from "./paths.js"

/** Facts about the machine: OS name and version, the user's shell, home folder (POSIX form). */
export interface PlatformFacts {
  os: string
  osVersion?: string
  shell: string
  home: string
}

const OS_NAMES: Record<string, string> = { linux: "Linux", darwin: "macOS", win32: "Windows", freebsd: "FreeBSD" }

async function linuxDistribution(): Promise<string | undefined> {
  try {
    const text = await readFile("/etc/os-release", "utf8")
    const m = /^PRETTY_NAME=(?:"([^"]*)"|(.*))$/m.exec(text)
    return (m?.[1] ?? m?.[2])?.trim() || undefined
  } catch {
    return undefined
  }
}

/** Reads the platform facts of this process; `home` and `env` may be given so tests stay independent. */
export async function readPlatform(
  env: Record<string, string | undefined>,
  home: string = homedir(),
  platform: string = process.platform,
): Promise<PlatformFacts> {
  const windows = platform === "win32"
  const shell = (windows ? env.ComSpec || env.COMSPEC : env.SHELL) || (windows ? "cmd.exe" : "/bin/sh")
  let osVersion: string | undefined
  if (platform === "linux") {
    const distro = await linuxDistribution()
    osVersion = distro ? `${distro}, kernel ${release()}` : `kernel ${release()}`
  } else if (platform === "darwin") osVersion = `Darwin ${release()}`
  else osVersion = release()
  const facts: PlatformFacts = { os: OS_NAMES[platform] ?? platform, shell, home: toPosix(home) }
  if (osVersion) facts.osVersion = osVersion
  return facts
}
