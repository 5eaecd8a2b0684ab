import { mergeConfig } from "vitest/config"
import shared from "../vitest.shared.js"

// The tests of the Node packages (node, backend, hook, tools) as one project, in a worker thread (see the
// root vitest.config.ts). One package: `pnpm test --project node packages/backend`.
export default mergeConfig(shared, {
  test: {
    name: "node",
    pool: "threads",
    include: ["{node,backend,hook,tools}/test/**/*.test.ts"],
    globalSetup: ["backend/test/globalSetup.ts"]
  }
})
