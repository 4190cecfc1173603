import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    // Names the test peers that are not installed (test/peers/package.json), whose tests skip.
    globalSetup: ["test/peers/notice.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { enabled: false },
  },
})
