/**
 * Hostile probes on attachments read from files (issue 33), with real files, links, FIFOs
 * and devices: `AttachmentFiles.layerWithin(root)` refuses a path that climbs out of its
 * root (`..`, an absolute path, a symbolic link pointing out); both layers refuse what is not
 * a regular file (`/dev/zero`, a FIFO nobody writes — which never holds one of libuv's
 * threads, so reads keep working after many), and a file over the budget or one that grows
 * without end while read is `attachment-budget`: a typed error, bounded, never a hang.
 */
import { Attachment } from "@effect-ahp/harness"
import { AttachmentFiles } from "@effect-ahp/node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, type Layer } from "effect"
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { tempFile } from "./utils.js"

const maxBytes = 1024 * 1024

/** Snapshots `file` through `files`: the failure's reason, or the bytes' text. */
const read = (files: Layer.Layer<Attachment.Files>, file: string) =>
  Attachment.snapshot("part", Attachment.file(file), { maxBytes, timeoutMs: scaled(5000) }).pipe(
    Effect.provide(files),
    Effect.either,
    Effect.map(Either.match({ onLeft: (error) => error.reason, onRight: (s) => new TextDecoder().decode(s.bytes) }))
  )

describe("hostile: attachments from files", () => {
  it.scopedLive("layerWithin: traversal, an absolute path, a link out of the root are refused; inside is read", () =>
    Effect.gen(function*() {
      const base = path.dirname(yield* tempFile("x"))
      const root = path.join(base, "root")
      fs.mkdirSync(path.join(root, "sub"), { recursive: true })
      fs.writeFileSync(path.join(root, "sub", "ok.txt"), "inside")
      const secret = path.join(base, "secret.txt")
      fs.writeFileSync(secret, "outside")
      fs.symlinkSync(secret, path.join(root, "out-link"))
      fs.symlinkSync(path.join(root, "sub", "ok.txt"), path.join(root, "in-link"))
      fs.symlinkSync(base, path.join(root, "sub", "up"))
      const within = AttachmentFiles.layerWithin(root)
      assert.strictEqual(yield* read(within, "sub/ok.txt"), "inside")
      assert.strictEqual(yield* read(within, path.join(root, "sub", "ok.txt")), "inside")
      assert.strictEqual(yield* read(within, "in-link"), "inside")
      for (
        const escape of [
          "../secret.txt",
          "sub/../../secret.txt",
          secret,
          "out-link",
          "sub/up/secret.txt",
          "/etc/passwd"
        ]
      ) {
        assert.strictEqual(yield* read(within, escape), "attachment-unreadable", escape)
      }
      assert.strictEqual(yield* read(within, "sub"), "attachment-unreadable", "a folder")
    }))

  it.scopedLive("/dev/zero and FIFOs nobody writes are refused at once; reads still work after many", () =>
    Effect.gen(function*() {
      const dir = path.dirname(yield* tempFile("x"))
      const file = path.join(dir, "ok.txt")
      fs.writeFileSync(file, "fine")
      const fifos = Array.from({ length: 8 }, (_, n) => path.join(dir, `fifo-${n}`))
      for (const fifo of fifos) execFileSync("mkfifo", [fifo])
      // a reader stuck opening a FIFO is released when the test ends
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          for (const fifo of fifos) fs.closeSync(fs.openSync(fifo, fs.constants.O_RDWR | fs.constants.O_NONBLOCK))
        })
      )
      for (const files of [AttachmentFiles.layer, AttachmentFiles.layerWithin(dir)]) {
        assert.strictEqual(yield* read(files, "/dev/zero"), "attachment-unreadable")
        for (const fifo of fifos) assert.strictEqual(yield* read(files, fifo), "attachment-unreadable", fifo)
        const after = yield* Effect.timeout(read(files, file), scaled(5000))
        assert.strictEqual(after, "fine", "a regular file is still read")
      }
    }))

  it.scopedLive("a file over the budget, and one that grows without end while read: attachment-budget, bounded", () =>
    Effect.gen(function*() {
      const dir = path.dirname(yield* tempFile("x"))
      const big = path.join(dir, "big")
      fs.writeFileSync(big, Buffer.alloc(maxBytes + 1, "a"))
      assert.strictEqual(yield* read(AttachmentFiles.layer, big), "attachment-budget")
      const growing = path.join(dir, "growing")
      fs.writeFileSync(growing, "")
      const writer = yield* Effect.acquireRelease(
        Effect.sync(() =>
          spawn(process.execPath, [
            "-e",
            `const fs = require("fs"); const fd = fs.openSync(${JSON.stringify(growing)}, "a");
             const chunk = Buffer.alloc(65536, "g"); setInterval(() => fs.writeSync(fd, chunk), 1)`
          ], { stdio: "ignore" })
        ),
        (child) => Effect.sync(() => child.kill("SIGKILL"))
      )
      yield* Effect.sync(() => {
        while (fs.statSync(growing).size === 0 && writer.exitCode === null) {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
        }
      })
      const sizeBefore = fs.statSync(growing).size
      const started = Date.now()
      const outcome = yield* read(AttachmentFiles.layer, growing)
      // A reader that overtakes a writer slowed by load meets the end of the file: a prefix
      // of what was written, within the budget, is a correct snapshot too.
      if (outcome !== "attachment-budget" && outcome !== "attachment-unreadable") {
        assert.isAtMost(outcome.length, maxBytes)
        assert.match(outcome, /^g+$/)
      }
      if (sizeBefore > maxBytes) assert.strictEqual(outcome, "attachment-budget")
      assert.isBelow(Date.now() - started, scaled(5000) + scaled(2000))
    }))
})
