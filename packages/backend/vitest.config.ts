import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// Worker threads (see the root vitest.config.ts).
export default mergeConfig(shared, { test: { name: "backend", pool: "threads", globalSetup: ["test/globalSetup.ts"] } })
