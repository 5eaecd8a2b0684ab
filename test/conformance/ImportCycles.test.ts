/**
 * Module hygiene: no package source module takes part in a runtime import cycle (a cycle
 * works only by luck of evaluation order), and every public protocol module can be loaded
 * on its own, first, with every export defined.
 */
import { assert, describe, it } from "@effect/vitest"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { vi } from "vitest"

const root = resolve(__dirname, "..", "..")
const packages = join(root, "packages")

const sources = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return name.endsWith(".ts") && !name.endsWith(".d.ts") ? [path] : []
  })

/**
 * The relative modules a source file loads at run time: `import … from` and `export … from`,
 * except `import type` / `export type` (erased under `verbatimModuleSyntax`; an import with
 * only inline `type` specifiers is kept as a side-effect import, so it counts).
 */
const runtimeImports = (file: string, text: string): Array<string> => {
  const found: Array<string> = []
  const pattern = /^(import|export)\s+(type\s+)?([^;]*?)\s*from\s*"(\.{1,2}\/[^"]+)"/gm
  for (const match of text.matchAll(pattern)) {
    if (match[2] !== undefined) continue
    if (match[1] === "export" && !/^(\*|\{)/.test(match[3]!)) continue
    found.push(resolve(dirname(file), match[4]!.replace(/\.js$/, ".ts")))
  }
  return found
}

/** The cycles of a graph, each as a path that starts and ends at the same node (one per strongly connected part). */
const cycles = (graph: ReadonlyMap<string, ReadonlyArray<string>>): Array<Array<string>> => {
  const found: Array<Array<string>> = []
  const state = new Map<string, "open" | "done">()
  const stack: Array<string> = []
  const visit = (node: string): void => {
    state.set(node, "open")
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      const seen = state.get(next)
      if (seen === "open") found.push([...stack.slice(stack.indexOf(next)), next])
      else if (seen === undefined) visit(next)
    }
    stack.pop()
    state.set(node, "done")
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return found
}

describe("import cycles", () => {
  it("the cycle finder finds a cycle (the check can fail)", () => {
    const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]]])
    assert.deepStrictEqual(cycles(graph), [["a", "b", "c", "a"]])
    assert.deepStrictEqual(
      runtimeImports(
        "/x/A.ts",
        `import type * as B from "./B.js"\nimport { type C } from "./C.js"\nexport { D } from "./D.js"\nexport type { E } from "./E.js"\n`
      ),
      ["/x/C.ts", "/x/D.ts"]
    )
  })

  it("no package source module is part of a runtime import cycle", () => {
    const graph = new Map<string, Array<string>>()
    for (const pkg of readdirSync(packages, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
      const src = join(packages, pkg.name, "src")
      for (const file of sources(src)) graph.set(file, runtimeImports(file, readFileSync(file, "utf8")))
    }
    assert.isAbove(graph.size, 50)
    const found = cycles(graph).map((cycle) => cycle.map((file) => relative(packages, file)).join(" → "))
    assert.deepStrictEqual(found, [])
  })
})

describe.sequential("each public protocol module loads alone", () => {
  const src = join(packages, "protocol", "src")
  const modules = readdirSync(src).filter((name) => /^[A-Z].*\.ts$/.test(name))

  for (const name of modules) {
    it(name, async () => {
      vi.resetModules()
      const loaded: Record<string, unknown> = await import(join(src, name))
      const undefinedExports = Object.entries(loaded).filter(([, value]) => value === undefined).map(([key]) => key)
      assert.deepStrictEqual(undefinedExports, [])
      assert.isAbove(Object.keys(loaded).length, 0)
    })
  }
})
