/**
 * Registration trust, attacked as issue 33 did, through the real hook process (`node <bundle>
 * hook claude-code`, payload on stdin, an isolated home and state folder): a registration
 * planted in a parent folder or in a shared folder never runs; a repository's own
 * registration runs only once the user trusted its exact text, and until then the user's
 * registration decides and the hook says why (`systemMessage`); a file or folder owned by
 * someone else, writable by the group, or a symbolic link is refused by name; a file changed
 * after it was trusted is untrusted again; the trust file counts only while it is the user's
 * alone. `ahp trust` writes that file privately and atomically, lists and revokes.
 */
import * as Trust from "@effect-ahp/hook/Trust"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { answerOf, effectsBackend, hookEnv, runHook, startedPids, trustIn } from "./hookSupport.js"
import { intercept, registration, runCli, tempDir } from "./support.js"

const isRoot = process.getuid?.() === 0
/** Another user's id: `nobody`. */
const otherUid = 65534

/** A Claude Code `PreToolUse` payload for a `Bash` call in `cwd`. */
const bashIn = (cwd: string, command = "ls") =>
  JSON.stringify({
    session_id: "s",
    cwd,
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command, description: "a command" },
    tool_use_id: "toolu_1"
  })

/** Creates a folder (and its parents) with exactly `mode`, whatever the umask. */
const folder = (dir: string, mode = 0o755): string => {
  fs.mkdirSync(dir, { recursive: true })
  fs.chmodSync(dir, mode)
  return dir
}

/** Writes a JSON file with exactly `mode`, whatever the umask. */
const file = (dir: string, name: string, content: unknown, mode = 0o644): string => {
  const target = path.join(folder(dir), name)
  fs.writeFileSync(target, typeof content === "string" ? content : JSON.stringify(content))
  fs.chmodSync(target, mode)
  return target
}

/** The user's own registration (`~/.ahp/registration.json`): denies every tool call. */
const userPolicy = (dir: string) => {
  const log = path.join(dir, "user.log")
  file(path.join(folder(path.join(dir, "home"), 0o700), ".ahp"), "registration.json", userDeny(log))
  return log
}
const userDeny = (log: string) => effectsBackend(log, [{ type: "deny", reason: "the user's policy" }], ["tool.before"])

/** A project registration that denies with the project's reason. */
const projectDeny = (log: string) =>
  effectsBackend(log, [{ type: "deny", reason: "the project's policy" }], [
    "tool.before"
  ])

/** The registration planted by the attacker: a backend that leaves a marker when it starts. */
const planted = (marker: string) =>
  registration({
    id: "com.example.planted",
    transport: { type: "stdio", command: "sh", args: ["-c", `touch '${marker}'`], lifecycle: "per_event" },
    subscriptions: [intercept(["tool.before"], { timeoutMs: 2_000 })]
  })

const hook = (dir: string, payload: string, env: Record<string, string> = {}) =>
  runHook(["claude-code"], payload, { dir, env })

const reasonOf = (answer: any): string | undefined => answer?.hookSpecificOutput?.permissionDecisionReason

describe("a planted registration never runs", () => {
  it.scoped("PARENT/.ahp above the project (its git work tree, CLAUDE_PROJECT_DIR, or the payload's cwd) is never looked at", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const parent = folder(path.join(dir, "parent"))
      const marker = path.join(parent, "PLANTED_RAN")
      file(path.join(parent, ".ahp"), "registration.json", planted(marker))
      trustIn(dir, path.join(parent, ".ahp", "registration.json"))
      const userLog = userPolicy(dir)
      const plain = folder(path.join(parent, "sub", "proj"))
      const repository = folder(path.join(parent, "sub", "repo"))
      folder(path.join(repository, ".git"))
      const claudeProject = folder(path.join(parent, "sub", "claude"))
      for (
        const [cwd, env] of [
          [plain, {}],
          [folder(path.join(repository, "src")), {}],
          [claudeProject, { CLAUDE_PROJECT_DIR: claudeProject }]
        ] as const
      ) {
        const run = yield* hook(dir, bashIn(cwd), env)
        const answer = answerOf(run)
        assert.strictEqual(reasonOf(answer), "the user's policy", run.stderr)
        assert.isUndefined(answer.systemMessage, "nothing was found, so there is nothing to report")
        assert.isFalse(fs.existsSync(marker), `the planted backend ran for cwd ${cwd}`)
      }
      assert.strictEqual(startedPids(userLog).length, 3)
    }))

  it.scoped("a registration in a shared folder (world-writable, sticky like /tmp) never runs: not searched above the project, reported when the project is the shared folder", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const shared = folder(path.join(dir, "shared"), 0o1777)
      const marker = path.join(dir, "PLANTED_RAN")
      file(path.join(shared, ".ahp"), "registration.json", planted(marker))
      trustIn(dir, path.join(shared, ".ahp", "registration.json"))
      const project = folder(path.join(shared, "proj"))
      userPolicy(dir)
      const below = answerOf(yield* hook(dir, bashIn(project)))
      assert.strictEqual(reasonOf(below), "the user's policy")
      assert.isUndefined(below.systemMessage, "the shared folder above the project is not looked at")
      const inside = answerOf(yield* hook(dir, bashIn(project), { CLAUDE_PROJECT_DIR: shared }))
      assert.strictEqual(reasonOf(inside), "the user's policy")
      assert.strictEqual(
        inside.systemMessage,
        `ahp: the project registration ${
          path.join(shared, ".ahp", "registration.json")
        } is not used: ${shared} is a shared folder (writable by others or sticky)`
      )
      assert.isFalse(fs.existsSync(marker), "the planted backend ran")
    }))

  it.scoped("a repository's own .ahp/registration.json runs only once trusted; meanwhile the user's policy decides and the hook says so", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const parent = folder(path.join(dir, "parent"))
      folder(path.join(parent, ".git"))
      const marker = path.join(parent, "PLANTED_RAN")
      const plantedFile = file(path.join(parent, ".ahp"), "registration.json", planted(marker))
      const cwd = folder(path.join(parent, "sub", "proj"))
      const untrusted = yield* hook(dir, bashIn(cwd))
      assert.isFalse(fs.existsSync(marker), "the untrusted project registration ran")
      assert.deepStrictEqual(answerOf(untrusted), {
        systemMessage: `ahp: the project registration ${plantedFile} is not trusted, so it is not used; review it, ` +
          `then run: ahp trust ${plantedFile} (and there is no user registration ${
            path.join(dir, "home", ".ahp", "registration.json")
          })`
      })
      const userLog = userPolicy(dir)
      const decided = answerOf(yield* hook(dir, bashIn(cwd)))
      assert.strictEqual(reasonOf(decided), "the user's policy")
      assert.strictEqual(decided.hookSpecificOutput.permissionDecision, "deny")
      assert.strictEqual(
        decided.systemMessage,
        `ahp: the project registration ${plantedFile} is not trusted, so it is not used; review it, then run: ahp trust ${plantedFile}`
      )
      assert.isFalse(fs.existsSync(marker), "the untrusted project registration ran")
      assert.strictEqual(startedPids(userLog).length, 1)
      // once the user trusts it, it is the one used: the marker shows the check above could see a run
      const trusted = yield* runCli(["trust", plantedFile], { env: hookEnv(dir) })
      assert.strictEqual(trusted.code, 0, trusted.stderr)
      yield* hook(dir, bashIn(cwd))
      assert.isTrue(fs.existsSync(marker), "the trusted project registration did not run")
      assert.strictEqual(startedPids(userLog).length, 1, "the user's registration is not consulted beside it")
    }))
})

describe("only the user's own files are used", () => {
  /** A git project with a trusted registration denying with the project's reason. */
  const trustedProject = (dir: string) => {
    const project = folder(path.join(dir, "project"))
    folder(path.join(project, ".git"))
    const log = path.join(dir, "project.log")
    const registrationFile = file(path.join(project, ".ahp"), "registration.json", projectDeny(log))
    trustIn(dir, registrationFile)
    return { project, file: registrationFile, log, userLog: userPolicy(dir) }
  }

  /** Runs the hook in the project; asserts the project file was refused for `problem`. */
  const refused = (dir: string, project: ReturnType<typeof trustedProject>, problem: string) =>
    Effect.gen(function*() {
      const run = yield* hook(dir, bashIn(project.project))
      const answer = answerOf(run)
      assert.strictEqual(reasonOf(answer), "the user's policy", run.stderr)
      assert.strictEqual(answer.systemMessage, `ahp: the project registration ${project.file} is not used: ${problem}`)
      assert.deepStrictEqual(startedPids(project.log), [], "the refused registration's backend started")
    })

  it.scoped("the trusted project registration is used while it and its folders are the user's alone", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const project = trustedProject(dir)
      const answer = answerOf(yield* hook(dir, bashIn(project.project)))
      assert.strictEqual(reasonOf(answer), "the project's policy")
      assert.isUndefined(answer.systemMessage)
      assert.deepStrictEqual(startedPids(project.userLog), [])
    }))

  // one test per target: each runs the hook four times, which takes tens of seconds under load
  const targets = {
    registration: (project: ReturnType<typeof trustedProject>) => project.file,
    ".ahp folder": (project: ReturnType<typeof trustedProject>) => path.dirname(project.file),
    "project root": (project: ReturnType<typeof trustedProject>) => project.project
  }
  it.scoped.each(Object.keys(targets) as Array<keyof typeof targets>)(
    "a group-writable %s is refused",
    (which) =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const project = trustedProject(dir)
        const target = targets[which](project)
        const mode = fs.statSync(target).mode & 0o7777
        for (
          const [bits, writers] of [[0o020, "its group"], [0o002, "others"], [0o022, "its group and others"]] as const
        ) {
          fs.chmodSync(target, mode | bits)
          yield* refused(
            dir,
            project,
            target === project.project && (bits & 0o002) !== 0
              ? `${target} is a shared folder (writable by others or sticky)`
              : `${target} is writable by ${writers}`
          )
        }
        fs.chmodSync(target, mode)
        assert.strictEqual(reasonOf(answerOf(yield* hook(dir, bashIn(project.project)))), "the project's policy")
      })
  )

  it.scoped("a symbolic link as the registration or as its .ahp folder is refused, even to a trusted file", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const project = trustedProject(dir)
      const ahp = path.dirname(project.file)
      const elsewhere = folder(path.join(dir, "elsewhere"))
      const target = path.join(elsewhere, "registration.json")
      fs.renameSync(project.file, target)
      fs.symlinkSync(target, project.file)
      trustIn(dir, target)
      yield* refused(dir, project, `${project.file} is a symbolic link`)
      fs.rmSync(ahp, { recursive: true })
      fs.symlinkSync(elsewhere, ahp)
      yield* refused(dir, project, `${ahp} is a symbolic link`)
    }))

  it.scoped.skipIf(!isRoot)(
    "a registration or folder owned by another user is refused (chown to nobody; needs root)",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const project = trustedProject(dir)
        for (const target of [project.file, path.dirname(project.file), project.project]) {
          fs.chownSync(target, otherUid, otherUid)
          yield* refused(dir, project, `${target} is owned by uid ${otherUid}, not by you (uid 0)`)
          fs.chownSync(target, 0, 0)
        }
      })
  )

  it.scoped("a registration named by --registration or AHP_REGISTRATION_FILE that another user owns or may write is an error", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "named.log")
      const named = file(dir, "named.json", projectDeny(log), 0o664)
      const foreign = isRoot ? file(dir, "foreign.json", projectDeny(log)) : "/etc/passwd"
      if (isRoot) fs.chownSync(foreign, otherUid, otherUid)
      const owner = fs.statSync(foreign).uid
      const cases = [
        [named, `${named} is writable by its group`],
        [foreign, `${foreign} is owned by uid ${owner}, not by you (uid ${process.getuid?.()})`]
      ] as const
      for (const [target, problem] of cases) {
        for (
          const run of [
            yield* runHook(["claude-code", "--registration", target], bashIn(dir), { dir }),
            yield* hook(dir, bashIn(dir), { AHP_REGISTRATION_FILE: target })
          ]
        ) {
          assert.strictEqual(
            answerOf(run).systemMessage,
            `ahp: cannot read the AHP registration ${target}: not used: ${problem}`,
            run.stderr
          )
        }
      }
      assert.deepStrictEqual(startedPids(log), [])
    }))

  it.scoped("the user's registration in a group-writable folder is an error, not a reason to look elsewhere", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const userLog = userPolicy(dir)
      const ahp = path.join(dir, "home", ".ahp")
      fs.chmodSync(ahp, 0o775)
      const answer = answerOf(yield* hook(dir, bashIn(dir)))
      assert.strictEqual(
        answer.systemMessage,
        `ahp: cannot read the AHP registration ${
          path.join(ahp, "registration.json")
        }: not used: ${ahp} is writable by its group`
      )
      assert.deepStrictEqual(startedPids(userLog), [])
    }))
})

describe("trust follows the exact text", () => {
  it.scoped("a registration changed after it was trusted is untrusted again, though its compiled form is cached", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const project = folder(path.join(dir, "project"))
      folder(path.join(project, ".git"))
      const log = path.join(dir, "project.log")
      const registrationFile = file(path.join(project, ".ahp"), "registration.json", projectDeny(log))
      trustIn(dir, registrationFile)
      const userLog = userPolicy(dir)
      assert.strictEqual(reasonOf(answerOf(yield* hook(dir, bashIn(project)))), "the project's policy")
      assert.isAbove(fs.readdirSync(path.join(dir, "cache")).length, 0, "the compiled registration is cached")
      const before = startedPids(log).length
      const changed = JSON.stringify(projectDeny(log)).replace("the project's policy", "changed by someone")
      fs.writeFileSync(registrationFile, changed)
      const answer = answerOf(yield* hook(dir, bashIn(project)))
      assert.strictEqual(reasonOf(answer), "the user's policy")
      assert.strictEqual(
        answer.systemMessage,
        `ahp: the project registration ${registrationFile} changed since you trusted it, so it is not used; ` +
          `review it, then run: ahp trust ${registrationFile}`
      )
      assert.strictEqual(startedPids(log).length, before, "the changed registration's backend started")
      assert.strictEqual(startedPids(userLog).length, 1)
    }))

  it.scoped("the same text at another path is not trusted", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "project.log")
      const first = file(path.join(dir, "first", ".ahp"), "registration.json", projectDeny(log))
      trustIn(dir, first)
      const second = folder(path.join(dir, "second"))
      const copy = file(path.join(second, ".ahp"), "registration.json", fs.readFileSync(first, "utf8"))
      const answer = answerOf(yield* hook(dir, bashIn(second)))
      assert.include(answer.systemMessage, `the project registration ${copy} is not trusted`)
      assert.deepStrictEqual(startedPids(log), [])
    }))

  it.scoped("a trust file that others may read or write, or that is a symbolic link, trusts nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "project.log")
      const project = folder(path.join(dir, "project"))
      const registrationFile = file(path.join(project, ".ahp"), "registration.json", projectDeny(log))
      trustIn(dir, registrationFile)
      const store = Trust.trustFile({ XDG_STATE_HOME: path.join(dir, "state") }, "")
      const notTrusted = `ahp: the project registration ${registrationFile} is not trusted`
      assert.strictEqual(reasonOf(answerOf(yield* hook(dir, bashIn(project)))), "the project's policy")
      fs.chmodSync(store, 0o644)
      assert.include(answerOf(yield* hook(dir, bashIn(project))).systemMessage, notTrusted)
      fs.chmodSync(store, 0o600)
      fs.chmodSync(path.dirname(store), 0o770)
      assert.include(answerOf(yield* hook(dir, bashIn(project))).systemMessage, notTrusted)
      fs.chmodSync(path.dirname(store), 0o700)
      const real = path.join(dir, "elsewhere.json")
      fs.renameSync(store, real)
      fs.symlinkSync(real, store)
      assert.include(answerOf(yield* hook(dir, bashIn(project))).systemMessage, notTrusted)
      assert.strictEqual(startedPids(log).length, 1)
    }))
})

describe("ahp trust", () => {
  it.scoped("trusts files into a private trust file replaced atomically, lists them with their state, revokes them", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const env = hookEnv(dir)
      const one = file(path.join(dir, "one", ".ahp"), "registration.json", projectDeny(path.join(dir, "one.log")))
      const two = file(path.join(dir, "two", ".ahp"), "registration.json", projectDeny(path.join(dir, "two.log")))
      const sha = (target: string) => Trust.digest(fs.readFileSync(target, "utf8"))
      const trusted = yield* runCli(["trust", one, path.relative(dir, two)], { env, cwd: dir })
      assert.strictEqual(trusted.code, 0, trusted.stderr)
      assert.strictEqual(
        trusted.stdout,
        [one, two].map((target) =>
          `trusted ${target} (sha256:${sha(target).slice(0, 16)}); a change to it untrusts it again\n`
        ).join("")
      )
      const store = path.join(dir, "state", "ahp", "trusted-registrations.json")
      assert.strictEqual(fs.statSync(store).mode & 0o777, 0o600)
      assert.strictEqual(fs.statSync(path.dirname(store)).mode & 0o777, 0o700)
      assert.deepStrictEqual(fs.readdirSync(path.dirname(store)), ["trusted-registrations.json"], "no temporary left")
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(store, "utf8")), { [one]: sha(one), [two]: sha(two) })
      const oldSha = sha(two)
      fs.appendFileSync(two, "\n")
      const listed = yield* runCli(["trust", "--list"], { env })
      assert.strictEqual(
        listed.stdout,
        `${one}  sha256:${sha(one).slice(0, 16)}  trusted\n${two}  sha256:${
          oldSha.slice(0, 16)
        }  changed since trusted: not used\n`
      )
      const revoked = yield* runCli(["trust", "--revoke", one], { env })
      assert.strictEqual(revoked.stdout, `revoked ${one}\n`)
      assert.deepStrictEqual(Object.keys(JSON.parse(fs.readFileSync(store, "utf8"))), [two])
      const again = yield* runCli(["trust", "--revoke", one], { env })
      assert.strictEqual(again.code, 1)
      assert.strictEqual(again.stderr, `ahp trust: ${one} was not trusted\n`)
      fs.chmodSync(two, 0o664)
      const unsafe = yield* runCli(["trust", two], { env })
      assert.strictEqual(unsafe.code, 2)
      assert.strictEqual(unsafe.stderr, `ahp trust: ${two} cannot be trusted: ${two} is writable by its group\n`)
      assert.strictEqual(JSON.parse(fs.readFileSync(store, "utf8"))[two], oldSha, "nothing was recorded")
    }))

  it.scoped("refuses a trust folder that is not private rather than writing into it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const env = hookEnv(dir)
      const one = file(path.join(dir, "one", ".ahp"), "registration.json", projectDeny(path.join(dir, "one.log")))
      folder(path.join(dir, "state", "ahp"), 0o755)
      const run = yield* runCli(["trust", one], { env })
      assert.strictEqual(run.code, 2)
      assert.strictEqual(
        run.stderr,
        `ahp trust: cannot record the trust: ${path.join(dir, "state", "ahp")} is not private (mode 0700 expected)\n`
      )
      assert.isFalse(fs.existsSync(path.join(dir, "state", "ahp", "trusted-registrations.json")))
    }))
})
