import { defineConfig } from "vitest/config"
import { resolveClients } from "./test/clients/resolve.js"

export default defineConfig({
  // The official SDK clients resolve from test/clients/, which the global set-up installs on first use.
  plugins: [resolveClients()],
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts"],
    // Installs the SDK clients (test/clients/) when missing, then names the test peers that are not installed
    // (test/peers/package.json), whose tests skip.
    globalSetup: ["test/clients/setup.ts", "test/peers/notice.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    typecheck: { enabled: false },
  },
})
