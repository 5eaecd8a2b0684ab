import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// The consumer check: a project of its own, so that `pnpm test` can run it beside the
// other projects (it mostly waits: on the build, on npm, on child processes).
export default mergeConfig(shared, {
  test: {
    name: "consumer",
    include: ["*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000
  }
})
