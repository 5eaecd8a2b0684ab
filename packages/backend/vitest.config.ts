import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// Forked workers (see the root vitest.config.ts).
export default mergeConfig(shared, { test: { name: "backend" } })
