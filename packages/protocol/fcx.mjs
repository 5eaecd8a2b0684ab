import { Arbitrary, FastCheck as fc } from "effect"
import * as Event from "./dist/Event.js"
import * as Common from "./dist/Common.js"
import * as Registration from "./dist/Registration.js"
const time = (name, arb, n = 200) => { fc.sample(arb, 5); const t = performance.now(); fc.sample(arb, n); console.log(name.padEnd(30), ((performance.now() - t) / n).toFixed(2), "ms/sample") }
time("Extensions", Arbitrary.make(Common.Extensions))
time("ReverseDns", Arbitrary.make(Common.ReverseDns))
time("Sha256", Arbitrary.make(Common.Sha256))
for (const t of ["tool.after", "turn.end", "tool.before", "session.start"]) time(t, Arbitrary.make(Event.schemaFor(t)), 60)
time("Registration", Arbitrary.make(Registration.Registration ?? Registration.Document), 60)
