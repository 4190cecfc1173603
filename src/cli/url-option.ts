import { InvalidArgumentError, Option } from "commander"
import { isHttpUrl } from "../http-url.js"

/**
 * An option that takes a URL (`--base-url <url>`): its value must be an http:// or https:// URL. An empty value
 * is refused when the command line is read, with the rest, instead of being taken as "not given" and quietly
 * falling back to the provider's official endpoint.
 */
export function urlOption(flags: string, description: string): Option {
  return new Option(flags, description).argParser((value: string) => {
    if (value.trim() === "")
      throw new InvalidArgumentError(
        "expected an http:// or https:// URL, got an empty value (leave the option out to use the provider's own endpoint)",
      )
    if (!isHttpUrl(value))
      throw new InvalidArgumentError(
        `expected an http:// or https:// URL (for example http://localhost:8000/v1), got ${JSON.stringify(value)}`,
      )
    return value
  })
}
