import type { ViteUserConfig } from "vitest/config"

const config: ViteUserConfig = {
  esbuild: { target: "es2022" },
  test: {
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    sequence: { concurrent: true },
    // A bound for a hung test, not a speed assertion: property tests that take 2 s on an
    // idle machine take several times that beside the rest of the suite on 2 cores.
    testTimeout: 30_000
  }
}

export default config
