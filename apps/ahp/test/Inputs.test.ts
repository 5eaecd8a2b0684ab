/**
 * Hostile input files: only regular files are read (a FIFO nobody writes, a directory and
 * /dev/zero are refused at once, never waited on or read without bound: through the real
 * binary, which a hang would not take the tests down with), the 16 MiB cap, strict UTF-8
 * (the error names the byte offset), and a signal during loading ends the command with 130
 * (the binary again).
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Schedule } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { runInProcess } from "./inProcess.js"
import { guardRegistration, output, registration, runCli, startCli, tempDir, toolBefore, writeFile } from "./support.js"

/** Fails the test (instead of hanging it) when the command takes longer than `seconds`. */
const within = <A, E, R>(seconds: number, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, {
    duration: Duration.seconds(seconds),
    onTimeout: () => new Error(`the command did not end within ${seconds} s`)
  })

const holds = (pid: number, file: string): boolean => {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return fs.readlinkSync(`/proc/${pid}/fd/${fd}`) === file
      } catch {
        return false
      }
    })
  } catch {
    return false
  }
}

/** Waits until process `pid` has `file` open (Linux /proc), polling every millisecond. */
const loading = (pid: number, file: string) =>
  Effect.suspend(() => holds(pid, file) ? Effect.void : Effect.fail("not yet")).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(1))),
    Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error(`${pid} never opened ${file}`) })
  )

const fifo = (dir: string) => {
  const file = path.join(dir, "event.fifo")
  const made = spawnSync("mkfifo", [file])
  assert.strictEqual(made.status, 0, String(made.stderr))
  return file
}

describe("ahp input files", () => {
  it.scopedLive("refuses a FIFO nobody writes, a directory and /dev/zero at once", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const pipe = fifo(dir)
      const cases: ReadonlyArray<readonly [string, RegExp]> = [
        [pipe, /is a FIFO \(named pipe\): inputs are read from regular files only/],
        [dir, /is a directory: inputs are read from regular files only/],
        ["/dev/zero", /is a character device: inputs are read from regular files only/]
      ]
      const run = yield* within(20, runCli(["validate", ...cases.map(([file]) => file)]))
      assert.strictEqual(run.code, 2, run.stderr)
      for (const [file, message] of cases) {
        assert.match(run.stdout, new RegExp(`${file}: unreadable\\n  .*${message.source}`), file)
      }
      const reg = writeFile(dir, "registration.json", registration())
      const dispatch = yield* within(20, runCli(["dispatch", "--registration", reg, "--event", pipe]))
      assert.strictEqual(dispatch.code, 2, dispatch.stderr)
      assert.deepInclude(output(dispatch), { error: "input", file: pipe })
      assert.match(output(dispatch).message, /the event file .* is a FIFO/)
    }))

  it.scopedLive("refuses a file over 16 MiB without reading it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const big = path.join(dir, "big.json")
      fs.writeFileSync(big, "")
      fs.truncateSync(big, 16 * 1024 * 1024 + 1)
      const run = yield* within(20, runInProcess(["validate", big]))
      assert.strictEqual(run.code, 2)
      assert.match(run.stdout, /is larger than the 16 MiB input limit/)
      const atLimit = path.join(dir, "limit.json")
      fs.writeFileSync(atLimit, `${" ".repeat(16 * 1024 * 1024 - 2)}{}`)
      const accepted = yield* within(60, runInProcess(["validate", atLimit]))
      assert.match(accepted.stdout, /limit\.json: invalid/)
      assert.notInclude(accepted.stdout, "input limit")
    }))

  it.scopedLive("rejects ill-formed UTF-8, naming the byte and its offset", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const cases: ReadonlyArray<readonly [string, Buffer, string]> = [
        ["stray.json", Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), "byte 0xff at offset 6"],
        ["truncated.json", Buffer.concat([Buffer.from("\"ok "), Buffer.from([0xe2, 0x82])]), "byte 0xe2 at offset 4"],
        [
          "surrogate.json",
          Buffer.concat([Buffer.from("\""), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("\"")]),
          "byte 0xed at offset 1"
        ],
        [
          "overlong.json",
          Buffer.concat([Buffer.from("\""), Buffer.from([0xc0, 0xaf]), Buffer.from("\"")]),
          "byte 0xc0 at offset 1"
        ]
      ]
      for (const [name, bytes] of cases) fs.writeFileSync(path.join(dir, name), bytes)
      const validate = yield* within(20, runInProcess(["validate", ...cases.map(([name]) => path.join(dir, name))]))
      assert.strictEqual(validate.code, 2)
      for (const [name, , where] of cases) assert.include(validate.stdout, `${name} is not valid UTF-8: ${where}`, name)
      const reg = writeFile(dir, "registration.json", registration())
      const event = path.join(dir, "event.json")
      fs.writeFileSync(
        event,
        Buffer.concat([
          Buffer.from(JSON.stringify(toolBefore("ls")).slice(0, -1) + ",\"x\":\""),
          Buffer.from([0xfe]),
          Buffer.from("\"}")
        ])
      )
      const run = yield* within(20, runInProcess(["dispatch", "--registration", reg, "--event", event]))
      assert.strictEqual(run.code, 2)
      assert.match(output(run).message, /the event file .* is not valid UTF-8: byte 0xfe at offset \d+/)
      const bom = writeFile(dir, "bom.json", `\ufeff${JSON.stringify(guardRegistration)}`)
      const withBom = yield* within(20, runInProcess(["validate", bom]))
      assert.strictEqual(withBom.code, 0, withBom.stdout)
    }))

  it.scopedLive("SIGINT or SIGTERM while the files load ends the command with 130", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const big = path.join(dir, "big.json")
      fs.writeFileSync(big, `${" ".repeat(15 * 1024 * 1024)}{}`)
      for (const signal of ["SIGINT", "SIGTERM"] as const) {
        const running = yield* startCli(["validate", ...Array.from({ length: 40 }, () => big)])
        // the process has an input open: it is loading (polled tightly: each file is open
        // for a few milliseconds of the hundreds its parsing takes)
        yield* loading(running.child.pid!, big)
        running.child.kill(signal)
        const run = yield* within(20, running.done)
        assert.strictEqual(run.code, 130, `${signal}: ${run.stderr}`)
        assert.isBelow(run.stdout.split("\n").filter((l) => l.includes("valid")).length, 40, signal)
      }
    }), scaled(120_000))
})
