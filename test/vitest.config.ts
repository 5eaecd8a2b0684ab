import { mergeConfig } from "vitest/config"
import shared from "../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    name: "suites",
    include: ["conformance/**/*.test.ts", "docs/**/*.test.ts", "e2e/**/*.test.ts", "soak/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000
  }
})
