import { assert, it } from "@effect/vitest"
import { Effect } from "effect"

it.effect("smoke", () => Effect.sync(() => assert.strictEqual(1 + 1, 2)))
