import { mergeConfig } from "vitest/config"
import shared, { timeouts } from "../vitest.shared.js"

export default mergeConfig(shared, {
  test: {
    name: "suites",
    include: ["conformance/**/*.test.ts", "docs/**/*.test.ts", "e2e/**/*.test.ts", "soak/**/*.test.ts"],
    ...timeouts(60_000, 60_000)
  }
})
