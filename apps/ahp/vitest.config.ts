import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    name: "ahp",
    globalSetup: ["../../test/support/bundleSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
