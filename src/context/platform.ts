import { homedir, release } from "node:os"
import { readTextFileSync } from "./instructions/read.js"
import { toPosix } from "./paths.js"

/** Facts about the machine: OS name and version, the user's shell, home folder (POSIX form). */
export interface PlatformFacts {
  os: string
  osVersion?: string
  shell: string
  home: string
}

const OS_NAMES: Record<string, string> = { linux: "Linux", darwin: "macOS", win32: "Windows", freebsd: "FreeBSD" }

function linuxDistribution(): string | undefined {
  // A small file read synchronously: the promise API's first use costs a fresh process more than the read.
  const read = readTextFileSync("/etc/os-release", 64 * 1024)
  if (!read.ok) return undefined
  const m = /^PRETTY_NAME=(?:"([^"]*)"|(.*))$/m.exec(read.text)
  return (m?.[1] ?? m?.[2])?.trim() || undefined
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
    const distro = linuxDistribution()
    osVersion = distro ? `${distro}, kernel ${release()}` : `kernel ${release()}`
  } else if (platform === "darwin") osVersion = `Darwin ${release()}`
  else osVersion = release()
  const facts: PlatformFacts = { os: OS_NAMES[platform] ?? platform, shell, home: toPosix(home) }
  if (osVersion) facts.osVersion = osVersion
  return facts
}
