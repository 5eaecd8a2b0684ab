/**
 * Locates the official AHP data (JSON Schemas and golden fixtures) that the test suites
 * read from `../shared/ahp`, without copying it into the repository. `AHP_SHARED` overrides
 * the location.
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** The folder holding `schema/` and `fixtures/`, or `undefined` when absent. */
export const sharedRoot: string | undefined = (() => {
  const candidate = process.env.AHP_SHARED ?? join(repositoryRoot, "..", "shared", "ahp")
  return existsSync(join(candidate, "fixtures", "draft", "manifest.json")) ? candidate : undefined
})()

/** One case of the official fixtures manifest. */
export interface FixtureCase {
  readonly id: string
  readonly path: string
  readonly binding: "http-json" | "stdio-jsonl" | string
  readonly schema: string
  readonly expectedValid: boolean
  readonly aggregateExpectedValid?: boolean
  readonly contextualExpectedValid?: boolean
  readonly editContext?: unknown
  readonly eventSchema?: string
}

/** The manifest's cases (empty when the data is absent). */
export const fixtureCases = (): ReadonlyArray<FixtureCase> =>
  sharedRoot === undefined
    ? []
    : JSON.parse(readFileSync(join(sharedRoot, "fixtures", "draft", "manifest.json"), "utf8")).cases

/** The absolute path of a manifest path (`fixtures/draft/...`). */
export const fixturePath = (path: string): string => join(sharedRoot ?? "", path)

/** Whether a fixture file is present in this copy. */
export const fixtureExists = (c: FixtureCase): boolean => existsSync(fixturePath(c.path))

/** Reads a fixture's text. */
export const readFixture = (c: FixtureCase): string => readFileSync(fixturePath(c.path), "utf8")
