import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { isSecretEnvName, SECRET_ENV_SUFFIXES, withoutSecrets } from "./secret-env.js"

describe("secret environment variables", () => {
  it("treats the default name endings as secret, in any case", () => {
    for (const name of ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "aws_secret_access_key", "DB_PASSWORD", "APP_SECRET"])
      expect(isSecretEnvName(name)).toBe(true)
    for (const name of ["PATH", "HOME", "TOKENIZER_PATH", "API_KEY_FILE_DIR", "SECRETS_DIR"])
      expect(isSecretEnvName(name)).toBe(false)
  })

  it("adds listed names and lets kept names through", () => {
    const policy = { names: ["company_credentials"], keep: ["gh_token"] }
    expect(isSecretEnvName("COMPANY_CREDENTIALS", policy)).toBe(true)
    expect(isSecretEnvName("GH_TOKEN", policy)).toBe(false)
    expect(
      withoutSecrets({ GH_TOKEN: "a", NPM_TOKEN: "b", COMPANY_CREDENTIALS: "c", X: "d", Y: undefined }, policy),
    ).toEqual({ GH_TOKEN: "a", X: "d" })
  })

  it("keeps exactly the variables that are not secret", () => {
    const name = fc.oneof(
      fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/),
      fc
        .tuple(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,8}$/), fc.constantFrom(...SECRET_ENV_SUFFIXES))
        .map(([a, b]) => a + b),
    )
    fc.assert(
      fc.property(fc.dictionary(name, fc.string()), fc.array(name, { maxLength: 3 }), (env, names) => {
        const kept = withoutSecrets(env, { names })
        for (const [k, v] of Object.entries(env)) {
          if (isSecretEnvName(k, { names })) expect(kept).not.toHaveProperty(k)
          else expect(kept[k]).toBe(v)
        }
        for (const k of names) expect(Object.keys(kept).map((n) => n.toUpperCase())).not.toContain(k.toUpperCase())
      }),
    )
  })
})
