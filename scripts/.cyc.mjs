import ts from "typescript"
import { readdirSync, readFileSync, statSync, existsSync } from "node:fs"
import { join, dirname, resolve, relative } from "node:path"
const roots = process.argv.slice(2)
const files = (d) => readdirSync(d).flatMap((n) => { const p = join(d, n); return statSync(p).isDirectory() ? files(p) : p.endsWith(".ts") ? [p] : [] })
const graph = new Map()
for (const r of roots) for (const f0 of files(r)) { const f = resolve(f0)
  const info = ts.preProcessFile(readFileSync(f, "utf8"), true, true)
  graph.set(f, info.importedFiles.map((i) => i.fileName).filter((s) => s.startsWith(".")).map((s) => resolve(dirname(f), s.replace(/\.js$/, ".ts"))).filter(existsSync))
}
// tarjan
let index = 0; const st = []; const idx = new Map(); const low = new Map(); const on = new Set(); const sccs = []
const sc = (v) => { idx.set(v, index); low.set(v, index); index++; st.push(v); on.add(v)
  for (const w of graph.get(v) ?? []) { if (!idx.has(w)) { sc(w); low.set(v, Math.min(low.get(v), low.get(w))) } else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w))) }
  if (low.get(v) === idx.get(v)) { const c = []; let w; do { w = st.pop(); on.delete(w); c.push(w) } while (w !== v); if (c.length > 1 || (graph.get(v) ?? []).includes(v)) sccs.push(c) } }
for (const v of graph.keys()) if (!idx.has(v)) sc(v)
for (const c of sccs) console.log(c.map((f) => relative(process.cwd(), f)).join("  "))
