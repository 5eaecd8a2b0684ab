import { Args, CliConfig, Command, Options, ValidationError, HelpDoc } from "@effect/cli"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import { NodeContext } from "@effect/platform-node"
import { Effect, Either } from "effect"

const dispatch = Command.make("dispatch", {
  registration: Options.text("registration").pipe(Options.withPseudoName("FILE"), Options.withDescription("the registration")),
  event: Options.text("event").pipe(Options.withPseudoName("FILE")),
  pretty: Options.boolean("pretty"),
  timeout: Options.integer("observation-timeout").pipe(Options.withDefault(5000)),
})
const validate = Command.make("validate", {
  json: Options.boolean("json"),
  files: Args.text({ name: "FILE" }).pipe(Args.repeated)
})
const demo = Command.make("demo", { auditFile: Options.text("audit-file").pipe(Options.optional) })
const root = Command.make("ahp").pipe(Command.withSubcommands([dispatch, validate, demo]))
const config = CliConfig.make({ showBuiltIns: false, showTypes: false, finalCheckBuiltIn: false })
const cases = [
  [], ["dispach"], ["--help", "dispatch"], ["dispatch", "--help"], ["dispatch", "-h"], ["--version"], ["validate", "--version"],
  ["--log-level", "debug", "validate", "a.json"], ["validate", "a.json", "--log-level=debug"],
  ["dispatch", "--registration", "r", "--event", "e", "--prety"],
  ["--pretty", "dispatch"],
  ["dispatch", "--registration", "r"], ["dispatch", "--event"], ["validate", "a", "--json=yes"], ["validate"],
  ["demo", "extra"], ["demo", "--audit-file", "a", "--audit-file", "b"], ["validate", "a", "--log-level", "loud"],
  ["dispatch", "--registration=r.json", "--event", "e.json", "--observation-timeout", "250", "--pretty"],
  ["validate", "--", "--strange.json", "-"], ["validate", "--json", "yes"], ["validate", "x", "--frob"],
  ["dispatch", "--registration", "r", "--event", "e", "--observation-timeout", "x"],
]
for (const argv of cases) {
  const r = Effect.runSync(Effect.either(Descriptor.parse(root.descriptor, ["ahp", ...argv], config)).pipe(Effect.provide(NodeContext.layer)))
  console.log(JSON.stringify(argv), "=>", Either.isLeft(r) ? `${r.left._tag}: ${HelpDoc.toAnsiText(r.left.error).trim()}` : JSON.stringify(r.right, (k, v) => k === "usage" || k === "helpDoc" ? undefined : v))
}
