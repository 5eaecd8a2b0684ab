import { fileURLToPath } from "node:url"
import type { ViteUserConfig } from "vitest/config"
import { scaled } from "./test/support/load.js"

/**
 * A project's vitest timeouts as on a quiet machine (`test`, `hook`) and as scaled when the
 * config loaded (`testTimeout`, `hookTimeout`): `ahpTimeouts`, given to each test file.
 */
export interface BaseTimeouts {
  readonly test: number
  readonly hook?: number | undefined
  readonly testTimeout: number
  readonly hookTimeout?: number | undefined
}

declare module "vitest" {
  export interface ProvidedContext {
    readonly ahpTimeouts: BaseTimeouts
  }
}

/**
 * A project's vitest timeouts (each test's, and each hook's when given) as on a quiet
 * machine, scaled by the load factor (test/support/load.ts): bounds for a hung test, which a
 * loaded machine stretches like every other wait. Scaled twice: here, when the config loads,
 * and again as each test file starts (`test/support/rescale.ts`, a setup file, reading the
 * base values provided here), so that the load the run itself brings on (its workers, the
 * type-check, the consumer check, a second run beside it) raises them too.
 */
export const timeouts = (
  test: number,
  hook?: number
): { testTimeout: number; hookTimeout?: number; provide: { ahpTimeouts: BaseTimeouts } } => {
  const atLoad = { testTimeout: scaled(test), ...(hook === undefined ? {} : { hookTimeout: scaled(hook) }) }
  return { ...atLoad, provide: { ahpTimeouts: { test, hook, ...atLoad } } }
}

const config: ViteUserConfig = {
  esbuild: { target: "es2022" },
  test: {
    include: ["test/**/*.test.ts"],
    fakeTimers: { toFake: undefined },
    setupFiles: [fileURLToPath(new URL("./test/support/rescale.ts", import.meta.url))],
    sequence: { concurrent: true },
    // A bound for a hung test, not a speed assertion: property tests that take 2 s on an
    // idle machine take several times that beside the rest of the suite on 2 cores.
    ...timeouts(30_000)
  }
}

export default config
