/** URL and host checks shared by the provider registry, the config, the gateway and the CLI. */

/** Whether a text is an absolute http:// or https:// URL, the only kind of base URL a request can go to. */
export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}

/** Whether a host name (bare, or an IPv6 address in brackets) names this machine: `localhost`, `127.x.y.z`, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase()
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h)
}

/** Whether a URL names this machine (false for a text that is not a URL). */
export function isLoopbackUrl(url: string | undefined): boolean {
  if (url === undefined) return false
  try {
    return isLoopbackHost(new URL(url).hostname)
  } catch {
    return false
  }
}
