import { mergeConfig } from "vitest/config"
import shared from "../vitest.shared.js"

// The tests of the platform-free packages (protocol, harness, hosts) as one project, in a
// worker thread (see the root vitest.config.ts): their module graph loads once for all of
// them. One package: `pnpm test --project core packages/harness`.
export default mergeConfig(shared, {
  test: { name: "core", pool: "threads", include: ["{protocol,harness,hosts}/test/**/*.test.ts"] }
})
