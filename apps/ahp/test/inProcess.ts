/**
 * Running the command line and command implementations in process: the exit code they set
 * and what they print, and the shell guard example as an in-process backend.
 */
import { InProcess } from "@effect-ahp/backend"
import { Transport } from "@effect-ahp/harness"
import * as Io from "@effect-ahp/tools/Io"
import * as Serve from "@effect-ahp/tools/Serve"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect, Layer, Ref } from "effect"
import { Readable } from "node:stream"
import { format } from "node:util"
import * as Main from "../src/Main.js"
import { collect, intercept, registration, type Run } from "./support.js"

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

/** Runs that change this process's environment take turns. */
const environmentLock = Effect.unsafeMakeSemaphore(1)

/** Runs `effect` with `env` added to this process's environment, restored after. */
const withEnvironment = <A>(env: Record<string, string>, effect: Effect.Effect<A>): Effect.Effect<A> =>
  environmentLock.withPermits(1)(Effect.acquireUseRelease(
    Effect.sync(() => {
      const saved = Object.keys(env).map((name) => [name, process.env[name]] as const)
      Object.assign(process.env, env)
      return saved
    }),
    () => effect,
    (saved) =>
      Effect.sync(() => {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
      })
  ))

/**
 * Runs `ahp args…` in this process, as `Main.main` would in its own (without colour):
 * the exit code (130 when interrupted) and what it printed on stdout and stderr (its
 * `Console`, which also carries its logs, and `Io.Standard`, which reads `input`). `env`
 * is added to this process's environment for the run (such runs take turns; a test
 * running others beside one must not depend on the difference). For what needs a process of its own (a working directory, stdin,
 * signals, a terminal, another process at the same time), `runCli` spawns the bundle.
 */
export const runInProcess = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string>; readonly input?: string } = {}
): Effect.Effect<Run> =>
  options.env === undefined
    ? runHere(args, options.input)
    : withEnvironment(options.env, Effect.suspend(() => runHere(args, options.input)))

const runHere = (args: ReadonlyArray<string>, input: string | undefined): Effect.Effect<Run> => {
  const started = Main.start(args, { stdout: false, stderr: false })
  if (started._tag === "Print") {
    return Effect.succeed({
      code: started.code,
      signal: null,
      stdout: started.stream === "stdout" ? started.text : "",
      stderr: started.stream === "stderr" ? started.text : ""
    })
  }
  let stdout = ""
  let stderr = ""
  const out = (...args: ReadonlyArray<unknown>) => void (stdout += `${format(...args)}\n`)
  const err = (...args: ReadonlyArray<unknown>) => void (stderr += `${format(...args)}\n`)
  const standard = {
    input: () => Readable.from(input === undefined ? [] : [Buffer.from(input)]),
    output: () => collect((text) => (stdout += text))
  }
  return Console.consoleWith((console) =>
    Effect.exit(
      started.program(Effect.never).pipe(
        Effect.withConsole({
          ...console,
          log: (...args) => Effect.sync(() => out(...args)),
          error: (...args) => Effect.sync(() => err(...args)),
          unsafe: { ...console.unsafe, log: out, error: err }
        }),
        Effect.provideService(Io.Standard, standard)
      )
    )
  ).pipe(Effect.map((exit) => ({ code: Main.exitCodeOf(exit), signal: null, stdout, stderr })))
}
