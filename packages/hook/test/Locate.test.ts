/**
 * The registration lookup on real folders: `--registration`, then `AHP_REGISTRATION_FILE`,
 * then the nearest project `.ahp/registration.json` up to the project root (used only when
 * trusted and the user's alone), then `~/.ahp/registration.json`. A planted registration
 * above the project or in a shared folder is never used; a project registration present but
 * not used is reported in the `notice`; a named file that cannot be used is an error, not a
 * reason to look further. Also the files' reading (no FIFO waited for, strict UTF-8) and
 * the cache and socket paths.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Locate from "../src/Locate.js"
import * as Trust from "../src/Trust.js"
import { file, folder, modeOf, otherUid, tempDir } from "./TestFiles.js"

/** A registration text that says who it is. */
const text = (who: string) => JSON.stringify({ protocolVersion: "draft", hooks: [], who })

/** A world in a private temporary folder: a home with the user's registration, a state folder for the trust file. */
const world = (dir: string, options: { readonly user?: boolean } = {}) => {
  const home = folder(path.join(dir, "home"), 0o700)
  const env = { XDG_STATE_HOME: folder(path.join(dir, "state"), 0o700) }
  const user = path.join(home, ".ahp", "registration.json")
  if (options.user !== false) file(folder(path.join(home, ".ahp"), 0o700), "registration.json", text("user"))
  const trust = (...files: ReadonlyArray<string>) => {
    const store = Trust.trustFile(env, home)
    const trusted: Record<string, string> = { ...Trust.read(store) }
    for (const target of files) trusted[Trust.realPath(target)] = Trust.digest(fs.readFileSync(target, "utf8"))
    assert.isUndefined(Trust.write(store, trusted))
  }
  const context = (overrides: Partial<Locate.Context> = {}): Locate.Context => ({
    flag: undefined,
    env,
    cwd: dir,
    payloadCwd: undefined,
    home,
    ...overrides
  })
  return { home, env, user, trust, context }
}

/** A project's registration, created with its `.ahp` folder. */
const projectFile = (project: string, who = "project") =>
  file(folder(path.join(project, ".ahp")), "registration.json", text(who))

const whoOf = (located: Locate.Located): string | undefined =>
  located._tag === "Found" ? JSON.parse(located.text).who : undefined

describe.skipIf(process.platform === "win32")("Locate.registration", () => {
  it.scoped("the flag, then the variable, then the trusted project registration, then the user's", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const project = folder(path.join(dir, "project"))
      w.trust(projectFile(project))
      file(dir, "flag.json", text("flag"))
      const variable = file(dir, "variable.json", text("variable"))
      const env = { ...w.env, [Locate.registrationVariable]: variable }
      const cwd = project
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd, env, flag: "../flag.json" }))), "flag")
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd, env }))), "variable")
      assert.strictEqual(
        whoOf(Locate.registration(w.context({ cwd, env: { ...env, [Locate.registrationVariable]: "" } }))),
        "project",
        "an empty variable is no variable"
      )
      const found = Locate.registration(w.context({ cwd }))
      assert.deepStrictEqual(found, {
        _tag: "Found",
        file: path.join(project, ".ahp", "registration.json"),
        text: text("project")
      })
      fs.rmSync(path.join(project, ".ahp"), { recursive: true })
      const personal = Locate.registration(w.context({ cwd }))
      assert.deepStrictEqual(personal, { _tag: "Found", file: w.user, text: text("user") })
      fs.rmSync(w.user)
      assert.deepStrictEqual(Locate.registration(w.context({ cwd })), {
        _tag: "Missing",
        searched: [path.join(project, ".ahp", "registration.json"), w.user]
      })
    }))

  it.scoped("the project directory: CLAUDE_PROJECT_DIR, else the payload's cwd, else the working directory", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const byVariable = folder(path.join(dir, "claude"))
      const byPayload = folder(path.join(dir, "payload"))
      const byCwd = folder(path.join(dir, "cwd"))
      w.trust(projectFile(byVariable, "claude"), projectFile(byPayload, "payload"), projectFile(byCwd, "cwd"))
      const env = { ...w.env, CLAUDE_PROJECT_DIR: byVariable }
      assert.strictEqual(whoOf(Locate.registration(w.context({ env, cwd: byCwd, payloadCwd: byPayload }))), "claude")
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd: byCwd, payloadCwd: byPayload }))), "payload")
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd: byCwd }))), "cwd")
      assert.strictEqual(
        whoOf(Locate.registration(w.context({ cwd: byCwd, payloadCwd: "../payload" }))),
        "payload",
        "a relative payload cwd resolves against the working directory"
      )
    }))

  it.scoped("a registration planted above the project root is never looked at, even trusted", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const parent = folder(path.join(dir, "parent"))
      w.trust(projectFile(parent, "planted"))
      const repository = folder(path.join(parent, "repo"))
      folder(path.join(repository, ".git"))
      const inRepository = folder(path.join(repository, "src", "deep"))
      const plain = folder(path.join(parent, "plain"))
      const claude = folder(path.join(parent, "claude"))
      for (
        const context of [
          w.context({ cwd: inRepository }),
          w.context({ cwd: plain }),
          w.context({ cwd: plain, env: { ...w.env, CLAUDE_PROJECT_DIR: claude } })
        ]
      ) {
        const located = Locate.registration(context)
        assert.strictEqual(whoOf(located), "user", context.cwd)
        assert.isUndefined(located._tag === "Found" ? located.notice : "not found", "nothing was seen to report")
      }
      const inGit = Locate.registration({ ...w.context({ cwd: inRepository }), home: path.join(dir, "nohome") })
      assert.deepStrictEqual(inGit._tag === "Missing" ? inGit.searched : [], [
        path.join(inRepository, ".ahp", "registration.json"),
        path.join(repository, "src", ".ahp", "registration.json"),
        path.join(repository, ".ahp", "registration.json"),
        path.join(dir, "nohome", ".ahp", "registration.json")
      ], "searched from the directory up to its git work tree, no further")
    }))

  it.scoped("the nearest project registration is the only candidate: one up the git work tree found before one further up", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const repository = folder(path.join(dir, "repo"))
      folder(path.join(repository, ".git"))
      const sub = folder(path.join(repository, "sub"))
      w.trust(projectFile(repository, "root"))
      const cwd = folder(path.join(sub, "src"))
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd }))), "root")
      const nearer = projectFile(sub, "nearer")
      const untrusted = Locate.registration(w.context({ cwd }))
      assert.strictEqual(
        whoOf(untrusted),
        "user",
        "the untrusted nearer one is not passed over for the trusted root one"
      )
      assert.strictEqual(
        untrusted._tag === "Found" ? untrusted.notice : undefined,
        `the project registration ${nearer} is not trusted, so it is not used; review it, then run: ahp trust ${nearer}`
      )
    }))

  it.scoped("an untrusted or changed project registration leaves the decision to the user's, and says why", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const project = folder(path.join(dir, "project"))
      const registration = projectFile(project)
      const located = Locate.registration(w.context({ cwd: project }))
      assert.deepStrictEqual(located, {
        _tag: "Found",
        file: w.user,
        text: text("user"),
        notice:
          `the project registration ${registration} is not trusted, so it is not used; review it, then run: ahp trust ${registration}`
      })
      w.trust(registration)
      assert.strictEqual(whoOf(Locate.registration(w.context({ cwd: project }))), "project")
      fs.writeFileSync(registration, text("someone else"))
      const changed = Locate.registration(w.context({ cwd: project }))
      assert.strictEqual(whoOf(changed), "user")
      assert.strictEqual(
        changed._tag === "Found" ? changed.notice : undefined,
        `the project registration ${registration} changed since you trusted it, so it is not used; review it, then run: ahp trust ${registration}`
      )
      fs.rmSync(w.user)
      assert.deepStrictEqual(Locate.registration(w.context({ cwd: project })), {
        _tag: "Missing",
        searched: [registration, w.user],
        notice:
          `the project registration ${registration} changed since you trusted it, so it is not used; review it, ` +
          `then run: ahp trust ${registration} (and there is no user registration ${w.user})`
      })
    }))

  it.scoped("a trusted project registration that is not the user's alone, or a link, is refused by name", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const project = folder(path.join(dir, "project"))
      const registration = projectFile(project)
      w.trust(registration)
      const notUsed = (problem: string) => `the project registration ${registration} is not used: ${problem}`
      const noticeOf = (located: Locate.Located) => located._tag === "Found" ? located.notice : located._tag
      for (const target of [registration, path.dirname(registration), project]) {
        const mode = modeOf(target)
        fs.chmodSync(target, mode | 0o020)
        const located = Locate.registration(w.context({ cwd: project }))
        assert.strictEqual(whoOf(located), "user")
        assert.strictEqual(noticeOf(located), notUsed(`${target} is writable by its group`))
        fs.chmodSync(target, mode)
      }
      const elsewhere = file(folder(path.join(dir, "elsewhere")), "registration.json", text("project"))
      fs.rmSync(registration)
      fs.symlinkSync(elsewhere, registration)
      w.trust(elsewhere)
      assert.strictEqual(
        noticeOf(Locate.registration(w.context({ cwd: project }))),
        notUsed(`${registration} is a symbolic link`)
      )
    }))

  it.scoped("a project registration in a shared folder is reported, never used; none is looked for above one", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const shared = folder(path.join(dir, "shared"), 0o1777)
      const planted = projectFile(shared, "planted")
      w.trust(planted)
      const below = folder(path.join(shared, "project"))
      const located = Locate.registration(w.context({ cwd: below }))
      assert.deepStrictEqual(located, { _tag: "Found", file: w.user, text: text("user") })
      const inside = Locate.registration(w.context({ cwd: below, env: { ...w.env, CLAUDE_PROJECT_DIR: shared } }))
      assert.strictEqual(whoOf(inside), "user")
      assert.strictEqual(
        inside._tag === "Found" ? inside.notice : undefined,
        `the project registration ${planted} is not used: ${shared} is a shared folder (writable by others or sticky)`
      )
    }))

  it.scoped("a file the flag, the variable or the home names that cannot be used is an error, not a reason to look further", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const project = folder(path.join(dir, "project"))
      w.trust(projectFile(project))
      const missing = path.join(dir, "missing.json")
      assert.deepStrictEqual(Locate.registration(w.context({ cwd: project, flag: missing })), {
        _tag: "Unreadable",
        file: missing,
        reason: "no such file"
      })
      const writable = file(dir, "writable.json", text("writable"), 0o666)
      assert.deepStrictEqual(
        Locate.registration(w.context({ cwd: project, env: { ...w.env, [Locate.registrationVariable]: writable } })),
        { _tag: "Unreadable", file: writable, reason: `not used: ${writable} is writable by its group and others` }
      )
      const flagged = file(dir, "flag.json", text("flag"))
      assert.deepStrictEqual(
        Locate.registration(w.context({ cwd: project, flag: flagged, uid: otherUid })),
        {
          _tag: "Unreadable",
          file: flagged,
          reason: `not used: ${flagged} is owned by uid ${fs.statSync(flagged).uid}, not by you (uid ${otherUid})`
        }
      )
      fs.chmodSync(path.dirname(w.user), 0o770)
      assert.deepStrictEqual(Locate.registration(w.context({ cwd: dir })), {
        _tag: "Unreadable",
        file: w.user,
        reason: `not used: ${path.dirname(w.user)} is writable by its group`
      }, "the user's registration is checked up to the home folder")
    }))

  it.scoped("a refused project registration beside an unusable user's one: both problems in the reason", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const w = world(dir)
      const project = folder(path.join(dir, "project"))
      const registration = projectFile(project)
      fs.chmodSync(w.user, 0o664)
      assert.deepStrictEqual(Locate.registration(w.context({ cwd: project })), {
        _tag: "Unreadable",
        file: w.user,
        reason: `not used: ${w.user} is writable by its group; and the project registration ${registration} is not ` +
          `trusted, so it is not used; review it, then run: ahp trust ${registration}`
      })
    }))
})

describe.skipIf(process.platform === "win32")("Locate.read", () => {
  it.scoped("reads a regular file in strict UTF-8, a byte order mark skipped", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const plain = file(dir, "plain.json", "{\"é\":1}")
      assert.deepStrictEqual(Locate.read(plain), { _tag: "Found", file: plain, text: "{\"é\":1}" })
      const bom = file(dir, "bom.json", Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d]))
      assert.deepStrictEqual(Locate.read(bom), { _tag: "Found", file: bom, text: "{}" })
      const latin1 = file(dir, "latin1.json", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe9, 0x22, 0x7d]))
      assert.deepStrictEqual(Locate.read(latin1), {
        _tag: "Unreadable",
        file: latin1,
        reason: "not valid UTF-8 (byte 0xe9 at offset 6)"
      })
      const empty = file(dir, "empty.json", "")
      assert.deepStrictEqual(Locate.read(empty), { _tag: "Found", file: empty, text: "" })
    }))

  it.scoped("refuses a directory and a FIFO at once, without waiting for a writer", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const sub = folder(path.join(dir, "sub.json"))
      assert.deepStrictEqual(Locate.read(sub), { _tag: "Unreadable", file: sub, reason: "is a directory" })
      const fifo = path.join(dir, "fifo.json")
      execFileSync("mkfifo", [fifo])
      assert.deepStrictEqual(Locate.read(fifo), { _tag: "Unreadable", file: fifo, reason: "not a regular file" })
    }))

  it.scoped.skipIf(process.getuid?.() === 0)("names a file it may not read", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const locked = file(dir, "locked.json", "{}", 0o000)
      assert.deepStrictEqual(Locate.read(locked), { _tag: "Unreadable", file: locked, reason: "permission denied" })
    }))
})

describe.skipIf(process.platform === "win32")("Locate's folders", () => {
  it("the cache: AHP_CACHE_DIR, else $XDG_CACHE_HOME/effect-ahp, else ~/.cache/effect-ahp", () => {
    assert.strictEqual(Locate.cacheDir({ AHP_CACHE_DIR: "/c", XDG_CACHE_HOME: "/x" }, "/h"), "/c")
    assert.strictEqual(Locate.cacheDir({ XDG_CACHE_HOME: "/x" }, "/h"), "/x/effect-ahp")
    assert.strictEqual(Locate.cacheDir({ AHP_CACHE_DIR: "", XDG_CACHE_HOME: "" }, "/h"), "/h/.cache/effect-ahp")
  })

  it.scoped("the bridge's socket: AHP_BRIDGE_SOCKET, else one per registration's real path in the runtime folder", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const target = file(dir, "registration.json", "{}")
      const alias = path.join(dir, "alias.json")
      fs.symlinkSync(target, alias)
      const env = { XDG_RUNTIME_DIR: "/run/user/7" }
      assert.strictEqual(Locate.runtimeDir(env), "/run/user/7/effect-ahp")
      assert.strictEqual(Locate.runtimeDir({}), path.join(os.tmpdir(), `effect-ahp-${process.getuid?.() ?? 0}`))
      const socket = Locate.socketPath(target, env)
      assert.strictEqual(socket, `/run/user/7/effect-ahp/bridge-${Locate.sha256(target).slice(0, 16)}.sock`)
      assert.strictEqual(Locate.socketPath(alias, env), socket, "a link to the registration reaches the same bridge")
      assert.notStrictEqual(Locate.socketPath(file(dir, "other.json", "{}"), env), socket)
      assert.strictEqual(Locate.socketPath(target, { ...env, AHP_BRIDGE_SOCKET: "/s.sock" }), "/s.sock")
    }))

  it.scoped("a private folder is the user's with no access for others; ensurePrivateDir makes one, never loosens one", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const made = path.join(dir, "a", "b")
      assert.isTrue(Locate.ensurePrivateDir(made))
      assert.strictEqual(modeOf(made), 0o700)
      assert.isTrue(Locate.isPrivateDir(made))
      const open = folder(path.join(dir, "open"), 0o750)
      assert.isFalse(Locate.isPrivateDir(open), "the group may read it")
      assert.isFalse(Locate.ensurePrivateDir(open))
      assert.strictEqual(modeOf(open), 0o750, "left as it was")
      assert.isFalse(Locate.isPrivateDir(file(dir, "plain", "")), "a file is no folder")
      assert.isFalse(Locate.isPrivateDir(path.join(dir, "missing")))
      assert.isFalse(Locate.ensurePrivateDir(path.join(file(dir, "blocker", ""), "sub")), "cannot be created")
    }))
})
