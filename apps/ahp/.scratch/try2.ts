import { Args, Options, HelpDoc } from "@effect/cli"
import { Effect } from "effect"
const o = {
  event: Options.text("event").pipe(Options.withPseudoName("FILE"), Options.withDescription("the event file")),
  cap: Options.text("capabilities").pipe(Options.withPseudoName("FILE"), Options.withDescription("the grant"), Options.withDescription("default: all"), Options.optional),
  pretty: Options.boolean("pretty").pipe(Options.withDescription("indent")),
  n: Options.text("n").pipe(Options.withPseudoName("MS"), Options.mapEffect((s) => Effect.succeed(Number(s))), Options.withDefault(5000)),
  mode: Options.choice("mode", ["a", "b"]).pipe(Options.withDefault("a"))
}
const all = Options.all(o)
console.log(JSON.stringify(Options.getUsage(all), null, 0))
console.log(JSON.stringify(Options.getHelp(all), null, 0).slice(0, 3000))
const a = Args.text({ name: "FILE" }).pipe(Args.withDescription("the files"), Args.repeated)
console.log(JSON.stringify(Args.getUsage(a)), JSON.stringify(Args.getHelp(a)))
