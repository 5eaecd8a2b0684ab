/**
 * `ahp trust`: the user's record of the project registrations the command hook may run
 * (see `@effect-ahp/hook/Trust` for the rules). `ahp trust FILE…` trusts each file with its current
 * text, `--revoke FILE…` forgets them, `--list` shows every trusted file and whether its text
 * is still the one trusted.
 *
 * @since 0.1.0
 */
import * as Locate from "@effect-ahp/hook/Locate"
import * as Trust from "@effect-ahp/hook/Trust"
import { Console, Effect } from "effect"
import * as os from "node:os"
import * as path from "node:path"
import * as Io from "./Io.js"

/**
 * What `ahp trust` was asked to do.
 *
 * @since 0.1.0
 * @category models
 */
export interface TrustOptions {
  readonly files: ReadonlyArray<string>
  readonly list: boolean
  readonly revoke: boolean
}

const fail = (message: string, code: number = Io.exitCodes.failure) =>
  Effect.zipRight(Console.error(`ahp trust: ${message}`), Io.exitWith(code))

const listed = (trusted: Readonly<Record<string, string>>) =>
  Effect.forEach(Object.entries(trusted), ([file, digest]) => {
    const located = Locate.read(file)
    const state = located._tag === "Unreadable"
      ? `cannot be read: ${located.reason}`
      : Trust.digest(located.text) === digest
      ? "trusted"
      : "changed since trusted: not used"
    return Console.log(`${file}  sha256:${digest.slice(0, 16)}  ${state}`)
  }, { discard: true })

/**
 * Runs `ahp trust`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: TrustOptions): Effect.Effect<void, never, Io.ExitCode> =>
  Effect.gen(function*() {
    const store = Trust.trustFile(process.env, os.homedir())
    const trusted: Record<string, string> = { ...Trust.read(store) }
    if (options.list) {
      if (options.files.length > 0 || options.revoke) return yield* fail("--list takes no FILE and no --revoke")
      if (Object.keys(trusted).length === 0) return yield* Console.log(`no trusted registrations (${store})`)
      return yield* listed(trusted)
    }
    if (options.files.length === 0) return yield* fail("give the registration FILE… to trust, or --list")
    let missed = false
    for (const given of options.files) {
      const file = Trust.realPath(path.resolve(given))
      if (options.revoke) {
        if (trusted[file] === undefined) {
          yield* Console.error(`ahp trust: ${file} was not trusted`)
          missed = true
        } else {
          delete trusted[file]
          yield* Console.log(`revoked ${file}`)
        }
        continue
      }
      const problem = Trust.chainProblem(file, path.dirname(file), Trust.currentUid(), false)
      if (problem !== undefined) return yield* fail(`${file} cannot be trusted: ${problem}`)
      const located = Locate.read(file)
      if (located._tag === "Unreadable") return yield* fail(`cannot read ${file}: ${located.reason}`)
      trusted[file] = Trust.digest(located.text)
      yield* Console.log(`trusted ${file} (sha256:${trusted[file]!.slice(0, 16)}); a change to it untrusts it again`)
    }
    const problem = Trust.write(store, trusted)
    if (problem !== undefined) return yield* fail(`cannot record the trust: ${problem}`)
    if (missed) yield* Io.exitWith(Io.exitCodes.problems)
  })
