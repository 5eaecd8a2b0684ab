// Finds import cycles in the product code (apps/ahp/src and packages/*/src): every import
// counts, `import type`, `export … from`, `import()` and `typeof import()` included, and a
// workspace import (`@effect-ahp/protocol`, `@effect-ahp/hosts/HostEvents`) counts as an
// edge to that package's source file. `pnpm lint` runs it; it prints the files of each
// cycle and exits 1 when there is one.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The source folder of each workspace package, by package name. */
const workspaceSources = (base) => {
  const folders = [
    join(base, "apps", "ahp"),
    ...readdirSync(join(base, "packages")).map((p) => join(base, "packages", p))
  ]
  return new Map(
    folders.filter((folder) => existsSync(join(folder, "package.json"))).map((folder) => [
      JSON.parse(readFileSync(join(folder, "package.json"), "utf8")).name,
      join(folder, "src")
    ])
  )
}

/** Every TypeScript file under a folder. */
const tsFiles = (dir) =>
  !existsSync(dir) ?
    [] :
    readdirSync(dir).flatMap((name) => {
      const file = join(dir, name)
      return statSync(file).isDirectory()
        ? tsFiles(file)
        : /\.m?ts$/.test(name) && !name.endsWith(".d.ts")
        ? [file]
        : []
    })

/** The product's source files: apps/ahp/src and every package's src. */
export const productFiles = (base = root) => [...workspaceSources(base).values()].flatMap(tsFiles)

const asSource = (file) => {
  const candidates = [file.replace(/\.js$/, ".ts").replace(/\.mjs$/, ".mts"), `${file}.ts`, join(file, "index.ts")]
  return candidates.find((c) => existsSync(c) && statSync(c).isFile())
}

/** The source file an import names, when it is one of the workspace's. */
const resolveImport = (from, specifier, packages) => {
  if (specifier.startsWith(".")) return asSource(resolve(dirname(from), specifier))
  const match = /^(@effect-ahp\/[^/]+)(?:\/(.+))?$/.exec(specifier)
  const src = match === null ? undefined : packages.get(match[1])
  if (src === undefined) return undefined
  return asSource(match[2] === undefined ? join(src, "index.ts") : join(src, match[2]))
}

/** Each file's imports of other files among `files` (absolute paths). */
export const importGraph = (files, base = root) => {
  const packages = workspaceSources(base)
  const known = new Set(files.map((f) => resolve(f)))
  return new Map([...known].map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
    const targets = importedFiles
      .map((i) => resolveImport(file, i.fileName, packages))
      .filter((target) => target !== undefined && known.has(target))
    return [file, [...new Set(targets)]]
  }))
}

/**
 * The cycles of a graph: its strongly connected components of more than one file, and
 * files that import themselves (Tarjan's algorithm, iterative so deep graphs cannot
 * overflow the stack). Each is listed from its first file in the graph's order.
 */
export const findCycles = (graph) => {
  let counter = 0
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const cycles = []
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const work = [[start, 0]]
    index.set(start, counter)
    low.set(start, counter++)
    stack.push(start)
    onStack.add(start)
    while (work.length > 0) {
      const frame = work[work.length - 1]
      const [node, next] = frame
      const edges = graph.get(node) ?? []
      if (next < edges.length) {
        frame[1]++
        const target = edges[next]
        if (!index.has(target)) {
          index.set(target, counter)
          low.set(target, counter++)
          stack.push(target)
          onStack.add(target)
          work.push([target, 0])
        } else if (onStack.has(target)) {
          low.set(node, Math.min(low.get(node), index.get(target)))
        }
        continue
      }
      work.pop()
      if (work.length > 0) {
        const parent = work[work.length - 1][0]
        low.set(parent, Math.min(low.get(parent), low.get(node)))
      }
      if (low.get(node) === index.get(node)) {
        const component = []
        let member
        do {
          member = stack.pop()
          onStack.delete(member)
          component.push(member)
        } while (member !== node)
        if (component.length > 1 || edges.includes(node)) {
          const order = [...graph.keys()]
          cycles.push(component.sort((a, b) => order.indexOf(a) - order.indexOf(b)))
        }
      }
    }
  }
  return cycles
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cycles = findCycles(importGraph(productFiles()))
  for (const cycle of cycles) {
    process.stderr.write(`import cycle: ${cycle.map((file) => relative(root, file)).join(" -> ")}\n`)
  }
  if (cycles.length > 0) process.exitCode = 1
}
