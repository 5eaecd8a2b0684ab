import { mergeConfig } from "vitest/config"
import shared, { timeouts } from "../../vitest.shared.js"

// The real-host suite: Claude Code and Codex, each driven by a fake model on 127.0.0.1,
// with the policy installed as a user installs it. Its files run one test at a time
// (each test starts a whole host, its hooks and their backends, and several of them
// measure the host's own deadlines), two files side by side in the forks pool.
export default mergeConfig(shared, {
  test: {
    name: "hosts",
    globalSetup: ["../../test/support/bundleSetup.ts"],
    sequence: { concurrent: false },
    ...timeouts(180_000, 60_000)
  }
})
