import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    projects: ["packages/*/vitest.config.ts", "apps/*/vitest.config.ts", "test/vitest.config.ts"],
    // The library projects run in worker threads, the command line and the suites (which
    // start many processes and spawn npm) in forked workers; the two pools run side by side.
    // Within a pool, files share their worker's module graph (effect and the packages are
    // loaded once per worker, not once per file): no test relies on a fresh module state.
    // Most files wait on child processes, sockets and deadlines, so more files run at once
    // than there are cores. Equal min and max: workers are reused, never retired midway.
    poolOptions: { forks: { isolate: false }, threads: { isolate: false } },
    maxWorkers: 3,
    minWorkers: 3
  }
})
