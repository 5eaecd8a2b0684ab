/**
 * Which registration files may be used, on real files: a file or folder that is not the
 * user's alone (another owner, writable by the group or others, a symbolic link where links
 * are refused) is named with the reason; the chain check stops at its root; a shared folder
 * is one others may write or that is sticky. The trust file trusts only while it is private
 * and well-formed, follows the exact text under the real path, and is replaced atomically.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Trust from "../src/Trust.js"
import { file, folder, modeOf, otherUid, tempDir, uid } from "./TestFiles.js"

const digestA = Trust.digest("a")

describe.skipIf(process.platform === "win32")("Trust", () => {
  it.scoped("ownershipProblem names another owner, the group and others as writers, and a refused link", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const target = file(dir, "registration.json", {}, 0o644)
      assert.isUndefined(Trust.ownershipProblem(target, uid, true))
      assert.isUndefined(Trust.ownershipProblem(target, undefined, true), "no user to compare: ownership is not judged")
      assert.strictEqual(
        Trust.ownershipProblem(target, otherUid, true),
        `${target} is owned by uid ${uid}, not by you (uid ${otherUid})`
      )
      for (
        const [mode, writers] of [[0o664, "its group"], [0o646, "others"], [0o666, "its group and others"]] as const
      ) {
        fs.chmodSync(target, mode)
        assert.strictEqual(Trust.ownershipProblem(target, uid, true), `${target} is writable by ${writers}`)
      }
      fs.chmodSync(target, 0o644)
      const link = path.join(dir, "link.json")
      fs.symlinkSync(target, link)
      assert.strictEqual(Trust.ownershipProblem(link, uid, true), `${link} is a symbolic link`)
      assert.isUndefined(Trust.ownershipProblem(link, uid, false), "followed where links are allowed")
      const missing = path.join(dir, "missing.json")
      assert.strictEqual(Trust.ownershipProblem(missing, uid, true), `${missing} cannot be examined`)
    }))

  it.scoped("chainProblem checks the file and every folder up to its root, and nothing above it", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const above = folder(path.join(dir, "above"), 0o777)
      const root = folder(path.join(above, "project"))
      const ahp = folder(path.join(root, ".ahp"))
      const target = file(ahp, "registration.json", {})
      assert.isUndefined(
        Trust.chainProblem(target, root, uid, true),
        "the writable folder above the root is not judged"
      )
      fs.chmodSync(root, 0o775)
      assert.strictEqual(Trust.chainProblem(target, root, uid, true), `${root} is writable by its group`)
      fs.chmodSync(root, 0o755)
      fs.chmodSync(ahp, 0o757)
      assert.strictEqual(Trust.chainProblem(target, root, uid, true), `${ahp} is writable by others`)
      fs.chmodSync(ahp, 0o755)
      fs.chmodSync(target, 0o620)
      assert.strictEqual(Trust.chainProblem(target, root, uid, true), `${target} is writable by its group`)
      fs.chmodSync(target, 0o644)
      assert.strictEqual(
        Trust.chainProblem(target, above, uid, true),
        `${above} is writable by its group and others`,
        "with the root one folder higher, that folder counts"
      )
    }))

  it.scoped("isShared: writable by others or sticky, and a folder that cannot be examined counts as shared", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      assert.isFalse(Trust.isShared(dir))
      assert.isFalse(Trust.isShared(folder(path.join(dir, "group"), 0o775)), "the group alone does not share it")
      assert.isTrue(Trust.isShared(folder(path.join(dir, "open"), 0o777)))
      assert.isTrue(Trust.isShared(folder(path.join(dir, "sticky"), 0o1755)))
      assert.isTrue(Trust.isShared(path.join(dir, "missing")))
    }))

  it("trustFile: $XDG_STATE_HOME/ahp, else ~/.local/state/ahp", () => {
    assert.strictEqual(
      Trust.trustFile({ XDG_STATE_HOME: "/state" }, "/home/u"),
      "/state/ahp/trusted-registrations.json"
    )
    assert.strictEqual(
      Trust.trustFile({ XDG_STATE_HOME: "" }, "/home/u"),
      "/home/u/.local/state/ahp/trusted-registrations.json"
    )
  })

  it.scoped("write keeps a private file in a private folder, sorted, with no temporary left; read gives it back", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const store = path.join(dir, "state", "ahp", "trusted-registrations.json")
      const trusted: Record<string, string> = {
        "/b/.ahp/registration.json": Trust.digest("b"),
        "/a/.ahp/registration.json": digestA
      }
      assert.isUndefined(Trust.write(store, trusted))
      assert.strictEqual(modeOf(store), 0o600)
      assert.strictEqual(modeOf(path.dirname(store)), 0o700)
      assert.deepStrictEqual(fs.readdirSync(path.dirname(store)), ["trusted-registrations.json"])
      assert.deepStrictEqual(Object.keys(JSON.parse(fs.readFileSync(store, "utf8"))), [
        "/a/.ahp/registration.json",
        "/b/.ahp/registration.json"
      ])
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, trusted)
      assert.deepStrictEqual({ ...Trust.read(store, otherUid) }, {}, "another user's trust file trusts nothing")
    }))

  it.scoped("write refuses a folder that is not private, or not the user's, and records nothing", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const open = folder(path.join(dir, "open", "ahp"), 0o755)
      const store = path.join(open, "trusted-registrations.json")
      assert.strictEqual(Trust.write(store, {}), `${open} is not private (mode 0700 expected)`)
      fs.chmodSync(open, 0o770)
      assert.strictEqual(Trust.write(store, {}), `${open} is writable by its group`)
      fs.chmodSync(open, 0o700)
      assert.strictEqual(
        Trust.write(store, {}, otherUid),
        `${open} is owned by uid ${uid}, not by you (uid ${otherUid})`
      )
      assert.isFalse(fs.existsSync(store))
    }))

  it.scoped("read trusts nothing from a trust file that others may read, that is a link, malformed or too large", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const state = folder(path.join(dir, "ahp"), 0o700)
      const store = file(state, "trusted-registrations.json", { "/p": digestA }, 0o600)
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, { "/p": digestA })
      fs.chmodSync(store, 0o640)
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, {}, "readable by the group")
      fs.chmodSync(store, 0o600)
      fs.chmodSync(state, 0o770)
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, {}, "in a folder the group may write")
      fs.chmodSync(state, 0o700)
      const elsewhere = file(dir, "elsewhere.json", { "/p": digestA }, 0o600)
      const link = path.join(state, "link.json")
      fs.symlinkSync(elsewhere, link)
      assert.deepStrictEqual({ ...Trust.read(link, uid) }, {}, "a symbolic link")
      for (const text of ["not json", "[]", "null", "\"text\""]) {
        fs.writeFileSync(store, text)
        assert.deepStrictEqual({ ...Trust.read(store, uid) }, {}, text)
      }
      fs.writeFileSync(store, JSON.stringify({ "/p": digestA, "/upper": digestA.toUpperCase(), "/short": "ab12" }))
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, { "/p": digestA }, "only lowercase SHA-256 digests count")
      fs.writeFileSync(store, JSON.stringify({ "/p": digestA, pad: "x".repeat(1024 * 1024) }))
      assert.deepStrictEqual({ ...Trust.read(store, uid) }, {}, "over the 1 MiB bound")
      assert.deepStrictEqual({ ...Trust.read(path.join(state, "missing.json"), uid) }, {})
    }))

  it.scoped("status follows the exact text under the file's real path", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const target = file(dir, "registration.json", "{\"hooks\":[]}")
      const link = path.join(dir, "alias.json")
      fs.symlinkSync(target, link)
      const trusted = { [target]: Trust.digest("{\"hooks\":[]}") }
      assert.strictEqual(Trust.status(trusted, target, "{\"hooks\":[]}"), "Trusted")
      assert.strictEqual(
        Trust.status(trusted, link, "{\"hooks\":[]}"),
        "Trusted",
        "a link resolves to the trusted file"
      )
      assert.strictEqual(Trust.status(trusted, target, "{\"hooks\": []}"), "Changed")
      assert.strictEqual(Trust.status(trusted, path.join(dir, "other.json"), "{\"hooks\":[]}"), "Unknown")
      assert.strictEqual(Trust.status(Object.create(null), target, "{\"hooks\":[]}"), "Unknown")
    }))

  it("digest is the lowercase hex SHA-256 of the UTF-8 text", () => {
    assert.strictEqual(Trust.digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    assert.strictEqual(Trust.digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    assert.strictEqual(Trust.digest("é"), "4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c")
  })
})
