import * as inProcess from "./inProcess.js"
import { table } from "./report.js"
const rows = await inProcess.run({ warmup: 3, rounds: 10, ops: 1000 })
console.log(table(rows))
