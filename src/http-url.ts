/** URL checks shared by the provider registry and the CLI. */

/** Whether a text is an absolute http:// or https:// URL, the only kind of base URL a request can go to. */
export function isHttpUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text)
    return protocol === "http:" || protocol === "https:"
  } catch {
    return false
  }
}
