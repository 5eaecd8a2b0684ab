import { it } from "@effect/vitest"
import { Schema } from "effect"
import * as Content from "../src/Content.js"
import * as Issue from "../src/Issue.js"
import * as Json from "../src/Json.js"

it("scratch", () => {
  const d = Issue.decoder(Content.Messages)
  console.log(JSON.stringify(d([{ id: "m", role: "bot", parts: [{ id: "p", kind: "text", mediaType: "text/plain", selection: "body", text: 1, extra: 2 }, {id:"a", kind:"attachment", mediaType:"application/json", selection:"body", body:{ref:"x", size: 1}}] }, 5])
  , null, 1))
  const d2 = Issue.decoder(Schema.Struct({ a: Schema.Number, b: Schema.optionalWith(Schema.String, {exact:true}) }))
  console.log(JSON.stringify(d2(Json.parse('{"a": 90071992547409931, "c": 1}').pipe((e: any) => e.right))))
  console.log(Json.stringify(Json.parse('{"a": 90071992547409931, "b": [1e400, 2.5]}').pipe((e: any) => e.right)))
  console.log(JSON.stringify(Json.parse('{"a": 1,}')), JSON.stringify(Json.parse('')), JSON.stringify(Json.parse('{"a":\n tru}')))
})
