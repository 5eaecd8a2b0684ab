import { mergeConfig } from "vitest/config"
import shared, { timeouts } from "../../vitest.shared.js"

// The consumer check: a project of its own, so that `pnpm test` can run it beside the
// other projects (it mostly waits: on the build, on npm, on child processes). The global
// setup packs the packages once for its files.
export default mergeConfig(shared, {
  test: {
    name: "consumer",
    include: ["*.test.ts"],
    globalSetup: ["globalSetup.ts"],
    ...timeouts(300_000, 600_000)
  }
})
