import { describe, expect, it } from "vitest"
import { PROVIDERS } from "../providers/endpoints.js"
import { childEnv, PROVIDER_KEY_ENV } from "./child-env.js"

describe("the environment of the agent's child processes", () => {
  it("lists every key variable of the provider registry", () => {
    for (const provider of Object.values(PROVIDERS))
      for (const name of provider.keyEnv) expect(PROVIDER_KEY_ENV).toContain(name)
    expect(PROVIDER_KEY_ENV).toEqual([...new Set(PROVIDER_KEY_ENV)].sort())
  })

  it("removes every provider key, the host's names, and keeps what the host keeps", () => {
    const env = Object.fromEntries([...PROVIDER_KEY_ENV, "MY_CREDS", "GH_TOKEN", "PATH"].map((n) => [n, `v-${n}`]))
    expect(childEnv(env, { secretEnv: ["MY_CREDS"], keepEnv: ["GH_TOKEN"] })).toEqual({
      GH_TOKEN: "v-GH_TOKEN",
      PATH: "v-PATH",
    })
  })
})
