import { completeEvent } from "./inProcess.js"
const unsafe = (u: unknown): boolean => {
  const stack: Array<unknown> = [u]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === "number") { if (!(Math.abs(v) <= Number.MAX_SAFE_INTEGER)) return true; continue }
    if (typeof v !== "object" || v === null) continue
    if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) stack.push(v[i]); continue }
    for (const k in v) stack.push((v as any)[k])
  }
  return false
}
const unsafeRec = (v: unknown): boolean => {
  if (typeof v === "number") return !(Math.abs(v) <= Number.MAX_SAFE_INTEGER)
  if (typeof v !== "object" || v === null) return false
  if (Array.isArray(v)) { for (let i = 0; i < v.length; i++) if (unsafeRec(v[i])) return true; return false }
  for (const k in v) if (unsafeRec((v as any)[k])) return true
  return false
}
for (const size of [1024, 256 * 1024, 1024 * 1024]) {
  const text = JSON.stringify(completeEvent(size))
  const value = JSON.parse(text)
  const bench = (name: string, f: () => unknown, n = Math.max(20, Math.round(2e7 / size))) => {
    for (let i = 0; i < n / 5; i++) f()
    const t = performance.now()
    for (let i = 0; i < n; i++) f()
    console.log(size, name.padEnd(20), ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
  }
  bench("JSON.parse", () => JSON.parse(text))
  bench("JSON.stringify", () => JSON.stringify(value))
  bench("regex", () => /\d{16,}|[eE][+-]?\d{3,}/.test(text))
  bench("walk", () => unsafe(value))
  bench("walk rec", () => unsafeRec(value))
  bench("includes", () => text.includes("ahp-lossless-"))
}
