/**
 * docs/reference/events.md is the schemas' own account of the events: it equals what
 * eventReference.ts renders from them (AHP_WRITE_DOCS=1 writes it instead of comparing).
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { page } from "./eventReference.js"

const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "docs", "reference", "events.md")

describe("the event reference", () => {
  it("is generated from the current schemas", () => {
    const rendered = page()
    if (process.env["AHP_WRITE_DOCS"] === "1") fs.writeFileSync(file, rendered)
    assert.strictEqual(fs.readFileSync(file, "utf8"), rendered, "regenerate docs/reference/events.md (see its header)")
  })

  it("describes every catalogue event", () => {
    const headings = page().split("\n").filter((line) => line.startsWith("## ") && line.includes("."))
    assert.strictEqual(headings.length, 32)
  })
})
