import type { ViteUserConfig } from "vitest/config"
import { scaled } from "./test/support/load.js"

/**
 * A project's vitest timeouts (each test's, and each hook's when given) as on a quiet
 * machine, scaled by the load factor (test/support/load.ts) measured when the config loads:
 * bounds for a hung test, which a loaded machine stretches like every other wait. Every
 * project's config and every explicit per-test timeout scale the same way (`scaled`).
 */
export const timeouts = (test: number, hook?: number): { testTimeout: number; hookTimeout?: number } =>
  hook === undefined ? { testTimeout: scaled(test) } : { testTimeout: scaled(test), hookTimeout: scaled(hook) }

const config: ViteUserConfig = {
  esbuild: { target: "es2022" },
  test: {
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    sequence: { concurrent: true },
    // A bound for a hung test, not a speed assertion: property tests that take 2 s on an
    // idle machine take several times that beside the rest of the suite on 2 cores.
    ...timeouts(30_000)
  }
}

export default config
