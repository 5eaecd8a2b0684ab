import * as inProcess from "./inProcess.js"
import * as fixtures from "./fixtures.js"
const n = Number(process.argv[2] ?? 1)
const pair = await inProcess.chainPair(n, process.argv[3] === "merge" ? fixtures.modifyMerge : fixtures.noEffect, 1024)
for (let i = 0; i < 5; i++) await pair.ours(200)
const t = performance.now()
const lat = await pair.ours(5000)
console.log("per dispatch µs", (performance.now() - t) * 1000 / 5000)
await pair.close()
