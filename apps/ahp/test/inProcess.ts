/**
 * Running command implementations in process: the exit code they set and the lines they
 * print, and the shell guard example as an in-process backend.
 */
import { InProcess } from "@effect-ahp/backend"
import { Transport } from "@effect-ahp/harness"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect, Layer, Ref } from "effect"
import * as Io from "../src/Io.js"
import * as Serve from "../src/Serve.js"
import { intercept, registration } from "./support.js"

/** The id the shell guard is registered under. */
export const guardId = "com.example.shell-guard"

/** Transports serving the shell guard in process as `guardId` (any other id fails `unsupported`). */
export const guardTransports: Layer.Layer<Transport.Transports> = Layer.unwrapScoped(
  Effect.map(
    InProcess.fromLayer(Serve.example("shell-guard")),
    (guard) => Transport.layerInProcess({ [guardId]: guard })
  ).pipe(Effect.provide(NodeContext.layer))
)

/**
 * A registration of the shell guard (`guardId`, subscription `guard`) and then a backend
 * with no function behind it (`com.example.missing`, subscription `m`, under `policy`);
 * their stdio transports are never started.
 */
export const guardAndMissing = (policy: "fail-open" | "fail-closed") =>
  registration(
    {
      id: guardId,
      transport: { type: "stdio", command: "unused", lifecycle: "persistent" },
      subscriptions: [intercept(["tool.before"], { id: "guard" })]
    },
    {
      id: "com.example.missing",
      transport: { type: "stdio", command: "unused", lifecycle: "persistent" },
      subscriptions: [intercept(["tool.before"], { id: "m", failurePolicy: policy })]
    }
  )

/** Runs a command's effect; returns the exit code it set, what it printed on stdout and its value. */
export const captured = <A, E, R>(run: Effect.Effect<A, E, R | Io.ExitCode>) =>
  Effect.gen(function*() {
    const code = yield* Ref.make<number>(0)
    const lines: Array<string> = []
    const value = yield* Console.consoleWith((console) =>
      run.pipe(
        Effect.withConsole({
          ...console,
          log: (...args: ReadonlyArray<unknown>) => Effect.sync(() => void lines.push(args.join(" ")))
        }),
        Effect.provideService(Io.ExitCode, code)
      )
    )
    return { code: yield* Ref.get(code), output: lines.join("\n"), value }
  })
