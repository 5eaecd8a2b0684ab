import { mergeConfig } from "vitest/config"
import shared, { timeouts } from "../../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    name: "ahp",
    globalSetup: ["../../test/support/bundleSetup.ts"],
    ...timeouts(60_000, 60_000)
  }
})
