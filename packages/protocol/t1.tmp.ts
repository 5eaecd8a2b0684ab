import { Arbitrary, FastCheck, Schema } from "effect"
import * as assert from "node:assert"
import * as Event from "./src/Event.js"
import * as Issue from "./src/Issue.js"
for (const type of Event.eventTypes) {
  const schema = Event.schemaFor(type) as unknown as Schema.Schema<any, any>
  try {
    const decode = Issue.decoder(schema)
    const encode = Schema.encodeSync(schema)
    let fails = 0, first: any
    const t0 = Date.now()
    for (const v of FastCheck.sample(Arbitrary.make(schema), 100)) {
      const r = decode(JSON.parse(JSON.stringify(encode(v))))
      let eq = false
      try { assert.deepStrictEqual(r._tag === "Right" ? r.right : undefined, v); eq = true } catch {}
      if (!eq) { fails++; first ??= { v: JSON.stringify(v).slice(0, 400), r: JSON.stringify(r).slice(0, 600) } }
    }
    console.log(type, fails, Date.now() - t0, "ms", fails ? first : "")
  } catch (e) { console.log(type, "ERR", String(e).slice(0, 600)) }
}
