/**
 * The packages as a user gets them: every package is built and packed as it would be
 * published (`scripts/pack.mjs`), the tarballs are installed with npm into a project in a
 * temporary folder outside the workspace, a TypeScript consumer (`project/`) is
 * type-checked under plain strict NodeNext settings with `skipLibCheck: false` and run with
 * plain `node`, and the `ahp` tarball is installed globally (`npm i -g`) and run.
 *
 * Needs the npm registry, or an npm cache that already holds effect and its companions.
 * Every step that fails says which step, the command, its exit code and its output. Under
 * `pnpm test` the type-check runs beside the tests and builds what is packed here, so this
 * waits for it (AHP_TYPECHECK_RESULT names the file that receives tsc's exit code).
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { pack } from "../../scripts/pack.mjs"

const root = fileURLToPath(new URL("../../", import.meta.url))
const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")
const npmFlags = ["--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error"]

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** How a step runs: the exit code it must end with (default 0), its stdin, extra environment. */
interface StepOptions {
  readonly expected?: number
  readonly input?: string
  readonly env?: Readonly<Record<string, string>>
}

const execute = (command: string, args: ReadonlyArray<string>, cwd: string, options: StepOptions): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...options.env } })
    child.stdin.on("error", () => {})
    child.stdin.end(options.input ?? "")
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("error", (error) => resolve({ code: null, stdout, stderr: `${stderr}${String(error)}` }))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const tail = (text: string) => text.trim().split("\n").slice(-30).join("\n")

/** Runs a command; a failure names the step, the command, its exit code and its output. */
const step = async (
  what: string,
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  options: StepOptions = {}
) => {
  const expected = options.expected ?? 0
  const ran = await execute(command, args, cwd, options)
  if (ran.code !== expected) {
    throw new Error(
      `${what}: \`${[command, ...args].join(" ")}\` in ${cwd} exited with ${ran.code} (expected ${expected})\n` +
        `--- stdout\n${tail(ran.stdout)}\n--- stderr\n${tail(ran.stderr)}`
    )
  }
  return ran
}

const manifest = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))

const versions = {
  ...manifest(path.join(root, "packages", "backend", "package.json")).devDependencies,
  "@types/node": manifest(path.join(root, "package.json")).devDependencies["@types/node"]
}

interface Workspace {
  readonly dir: string
  /** Tarball path by package name. */
  readonly tarballs: Readonly<Record<string, string>>
  readonly consumer: string
  readonly ahp: string
}

/** Waits for the type-check `scripts/test.mjs` runs beside the tests, when it runs one. */
const typecheckDone = async (): Promise<void> => {
  const result = process.env.AHP_TYPECHECK_RESULT
  if (result === undefined || result === "") return
  while (!fs.existsSync(result)) await new Promise((resolve) => setTimeout(resolve, 250))
  const code = fs.readFileSync(result, "utf8")
  if (code !== "0") throw new Error(`the type-check failed (exit code ${code}): its build cannot be packed`)
}

let work: Workspace | undefined
let setupError: unknown = undefined

/** The shared setup's result, or the reason it failed. */
const ready = (): Workspace => {
  if (work === undefined) throw new Error(`the packages could not be packed and installed: ${String(setupError)}`)
  return work
}

const listing = (tarball: string) =>
  Effect.promise(() => step("listing a tarball", "tar", ["tzf", tarball], os.tmpdir())).pipe(
    Effect.map((ran) => ran.stdout.split("\n").filter((line) => line !== ""))
  )

const packedManifest = (tarball: string) =>
  Effect.promise(() =>
    step("reading a packed package.json", "tar", ["xzf", tarball, "-O", "package/package.json"], os.tmpdir())
  ).pipe(
    Effect.map((ran) => JSON.parse(ran.stdout))
  )

const targets = (exports: unknown): Array<string> =>
  typeof exports === "string"
    ? [exports]
    : exports !== null && typeof exports === "object"
    ? Object.values(exports).flatMap(targets)
    : []

describe.sequential("the packed packages, installed as a user installs them", () => {
  beforeAll(async () => {
    try {
      await typecheckDone()
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-consumer-"))
      const files = await pack(path.join(dir, "tarballs"))
      const tarballs: Record<string, string> = {}
      for (const file of files) {
        const name = path.basename(file).replace(/^effect-ahp-(.*)-\d+\.\d+\.\d+\.tgz$/, "@effect-ahp/$1")
        tarballs[name] = file
      }
      const consumer = path.join(dir, "consumer")
      fs.cpSync(path.join(root, "test", "consumer", "project"), consumer, { recursive: true })
      fs.rmSync(path.join(consumer, "out"), { recursive: true, force: true })
      const libraries = [
        "@effect-ahp/protocol",
        "@effect-ahp/harness",
        "@effect-ahp/hosts",
        "@effect-ahp/node",
        "@effect-ahp/backend"
      ]
      fs.writeFileSync(
        path.join(consumer, "package.json"),
        JSON.stringify({
          name: "consumer",
          private: true,
          type: "module",
          dependencies: {
            ...Object.fromEntries(libraries.map((name) => [name, `file:${tarballs[name]}`])),
            effect: versions.effect,
            "@effect/platform": versions["@effect/platform"],
            "@effect/platform-node": versions["@effect/platform-node"],
            "@types/node": versions["@types/node"]
          }
        })
      )
      await step("installing the library tarballs with npm", "npm", ["install", ...npmFlags], consumer)
      const global = path.join(dir, "global")
      await step(
        "installing the ahp tarball globally (npm i -g)",
        "npm",
        ["install", "--global", "--prefix", global, tarballs["@effect-ahp/cli"]!, ...npmFlags],
        dir
      )
      work = { dir, tarballs, consumer, ahp: path.join(global, "bin", "ahp") }
    } catch (error) {
      setupError = error instanceof Error ? error.message : error
    }
  })

  afterAll(() => {
    if (work !== undefined) fs.rmSync(work.dir, { recursive: true, force: true })
  })

  it.live("packs each package with its publishing manifest and nothing but what it ships", () =>
    Effect.gen(function*() {
      const { tarballs } = ready()
      assert.deepStrictEqual(Object.keys(tarballs).sort(), [
        "@effect-ahp/backend",
        "@effect-ahp/cli",
        "@effect-ahp/harness",
        "@effect-ahp/hosts",
        "@effect-ahp/node",
        "@effect-ahp/protocol"
      ])
      for (const [name, tarball] of Object.entries(tarballs)) {
        const files = yield* listing(tarball)
        const pkg = yield* packedManifest(tarball)
        assert.strictEqual(pkg.name, name)
        assert.notProperty(pkg, "private", name)
        for (const field of ["description", "license", "repository"]) assert.property(pkg, field, `${name} ${field}`)
        for (const required of ["package/package.json", "package/README.md", "package/LICENSE"]) {
          assert.include(files, required, `${name} ships ${required}`)
        }
        for (const file of files) {
          assert.notMatch(
            file,
            /(^|\/)(test|build|node_modules|\.tsbuildinfo)\/|tsconfig|vitest/,
            `${name} ships ${file}`
          )
        }
        for (const group of ["dependencies", "peerDependencies"]) {
          for (const [dependency, range] of Object.entries(pkg[group] ?? {})) {
            assert.notMatch(String(range), /^workspace:/, `${name} ${group} ${dependency}`)
          }
        }
        for (const target of targets(pkg.exports)) {
          assert.include(files, `package/${target.replace(/^\.\//, "")}`, `${name} exports ${target}`)
        }
        if (name === "@effect-ahp/cli") {
          assert.deepStrictEqual(pkg.bin, { ahp: "./dist/ahp.mjs" })
          assert.include(files, "package/dist/ahp.mjs")
          assert.notProperty(pkg, "dependencies", "the command line is one bundle: nothing to install with it")
        } else {
          assert.include(files, "package/dist/index.js")
          assert.include(files, "package/dist/index.d.ts")
          assert.isTrue(targets(pkg.exports).every((t) => !t.includes("internal") && !t.startsWith("./src")), name)
          assert.match(pkg.peerDependencies.effect, /^\^3\./, `${name} takes effect as a caret peer dependency`)
        }
      }
    }))

  it.live("installs without links back into the workspace and with one copy of effect", () =>
    Effect.sync(() => {
      const { consumer, dir } = ready()
      for (const name of ["protocol", "harness", "hosts", "node", "backend"]) {
        const installed = path.join(consumer, "node_modules", "@effect-ahp", name)
        assert.isFalse(fs.lstatSync(installed).isSymbolicLink(), `${installed} is a link`)
        assert.isTrue(fs.realpathSync(installed).startsWith(dir), `${installed} lives outside the consumer`)
      }
      const copies = fs.readdirSync(path.join(consumer, "node_modules"), { recursive: true, encoding: "utf8" })
        .filter((entry) => entry === "effect/package.json" || entry.endsWith("/node_modules/effect/package.json"))
      assert.deepStrictEqual(copies, ["effect/package.json"])
      const backend = manifest(path.join(consumer, "node_modules", "@effect-ahp", "node", "package.json"))
      assert.notProperty(backend.dependencies, "@effect/platform-node", "the Node transports need no platform-node")
    }))

  it.live("type-checks a consumer under plain strict NodeNext settings with skipLibCheck: false", () =>
    Effect.promise(async () => {
      const { consumer } = ready()
      const config = manifest(path.join(consumer, "tsconfig.json")).compilerOptions
      assert.deepInclude(config, { strict: true, module: "NodeNext", skipLibCheck: false })
      await step(
        "type-checking and compiling the consumer with tsc",
        process.execPath,
        [tsc, "-p", "tsconfig.json"],
        consumer
      )
    }))

  it.live("runs the consumer with plain node: an in-process, an HTTP and a stdio backend decide in one Hooks, also for a Claude Code hook payload", () =>
    Effect.promise(async () => {
      const { consumer } = ready()
      const ran = await step("running the compiled consumer", process.execPath, [path.join("out", "main.js")], consumer)
      assert.deepStrictEqual(JSON.parse(ran.stdout), {
        registration: { kind: "registration", issues: 0 },
        decision: "deny",
        reason: "destructive command",
        messages: ["seen in process", "seen over HTTP"],
        errors: 0,
        claudeCode: {
          hookSpecificOutput: {
            hookEventName: "PreToolUse",
            permissionDecision: "deny",
            permissionDecisionReason: "destructive command"
          },
          systemMessage: "seen in process\nseen over HTTP"
        },
        undiciAgent: true
      })
    }))

  it.live("installs ahp with npm i -g: --version, validate, dispatch and hook against the consumer's backend", () =>
    Effect.promise(async () => {
      const { ahp, consumer } = ready()
      const version = await step("ahp --version", ahp, ["--version"], consumer)
      assert.strictEqual(version.stdout, `${manifest(path.join(root, "apps", "ahp", "package.json")).version}\n`)
      const subscription = {
        mode: "intercept",
        events: ["tool.before"],
        timeoutMs: 20_000,
        content: { default: "body" }
      }
      const registration = (failurePolicy: string) => ({
        protocolVersion: "draft",
        hooks: [{
          id: "com.example.guard",
          transport: { type: "stdio", command: process.execPath, args: ["out/backend.js"], lifecycle: "persistent" },
          subscriptions: [{ ...subscription, failurePolicy }]
        }]
      })
      fs.writeFileSync(path.join(consumer, "registration.json"), JSON.stringify(registration("fail-closed")))
      fs.writeFileSync(path.join(consumer, "typo.json"), JSON.stringify(registration("fail-close")))
      const valid = await step("ahp validate on a valid registration", ahp, ["validate", "registration.json"], consumer)
      assert.strictEqual(valid.stdout, "registration.json: valid (registration)\n")
      const invalid = await step("ahp validate on an invalid registration", ahp, ["validate", "typo.json"], consumer, {
        expected: 1
      })
      assert.include(invalid.stdout, `got "fail-close" (did you mean "fail-closed"?)`)
      fs.writeFileSync(
        path.join(consumer, "event.json"),
        JSON.stringify({
          type: "tool.before",
          session: { id: "session-1" },
          tool: { name: "bash", input: { command: "rm -rf /" }, origin: "native" },
          call: { id: "call-1" },
          path: "main"
        })
      )
      const dispatched = await step(
        "ahp dispatch through the consumer's stdio backend",
        ahp,
        ["dispatch", "--registration", "registration.json", "--event", "event.json"],
        consumer
      )
      const result = JSON.parse(dispatched.stdout)
      assert.strictEqual(result.decision, "deny")
      assert.strictEqual(result.state.denial.reason, "destructive command")
      const hooked = await step(
        "ahp hook claude-code (a PreToolUse payload on stdin) through the consumer's stdio backend",
        ahp,
        ["hook", "claude-code", "--registration", "registration.json", "--no-bridge"],
        consumer,
        {
          input: JSON.stringify({
            session_id: "session-1",
            cwd: consumer,
            hook_event_name: "PreToolUse",
            tool_name: "Bash",
            tool_input: { command: "rm -rf /" },
            tool_use_id: "toolu_1"
          }),
          env: { AHP_CACHE_DIR: path.join(consumer, "cache") }
        }
      )
      assert.deepInclude(JSON.parse(hooked.stdout).hookSpecificOutput, {
        hookEventName: "PreToolUse",
        permissionDecision: "deny"
      })
    }))
})
