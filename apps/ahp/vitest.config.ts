import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    name: "ahp",
    // worker threads (see the root vitest.config.ts): the command line runs in child processes
    pool: "threads",
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
