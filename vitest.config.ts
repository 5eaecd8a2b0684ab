import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "apps/*/vitest.config.ts", "test/vitest.config.ts"],
    // Most test files wait on child processes, sockets and deadlines, so more files run at
    // once than there are cores. Equal min and max: workers are reused, never retired midway.
    pool: "forks",
    maxWorkers: 3,
    minWorkers: 3
  }
})
