import { mergeConfig } from "vitest/config"
import shared from "../../vitest.shared.js"

// Worker threads: the project's files share a thread while the process-heavy projects run
// in forked workers beside them.
export default mergeConfig(shared, { test: { name: "node", pool: "threads" } })
