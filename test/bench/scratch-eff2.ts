import { Effect } from "effect"
const n = Number(process.argv[2])
const loop = Effect.forEach(Array.from({ length: n }), () => Effect.withSpan(Effect.void, "x", { attributes: { a: "b" } }), { discard: true })
for (let k = 0; k < 3; k++) {
const t = performance.now()
await Effect.runPromise(loop)
console.log(n, ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
}
