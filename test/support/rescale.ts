/**
 * A setup file of every project (vitest.shared.ts): as a test file starts, its default test
 * and hook timeouts become the project's base values scaled by the load factor now, when
 * that is more than what the config computed as it loaded, before the run had brought its
 * own load on. Explicit per-test timeouts are `scaled(ms)` at collection, just after this.
 */
import { inject, vi } from "vitest"
import type {} from "../../vitest.shared.js"
import { scaled } from "./load.js"

const base = inject("ahpTimeouts")

vi.setConfig({
  testTimeout: Math.max(base.testTimeout, scaled(base.test)),
  ...(base.hook === undefined ? {} : { hookTimeout: Math.max(base.hookTimeout ?? 0, scaled(base.hook)) })
})
