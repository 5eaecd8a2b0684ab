/**
 * Attachment preparation for one call: the snapshots of the sources some receiver needs as
 * `body` (each read once, in part order, within the call's byte budget and time bound),
 * and each subscription's own uploads of them, right before its delivery.
 *
 * @internal
 */
import { Json } from "@effect-ahp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Attachment from "../Attachment.js"
import type * as Boundary from "../Boundary.js"
import * as Projection from "../Projection.js"
import type * as Registry from "../Registry.js"
import * as Uploads from "../Uploads.js"

/** Why a subscription's attachments could not be made ready. @internal */
export type PrepareError = Attachment.AttachmentError | Uploads.UploadError

/**
 * The references of a subscription's pending uploads, by part id.
 *
 * @internal
 */
export type Prepare = (
  route: Registry.Route,
  pending: ReadonlyArray<Projection.PendingUpload>
) => Effect.Effect<ReadonlyMap<string, string>, PrepareError>

/** @internal */
export interface Options {
  readonly boundary: Boundary.Boundary
  readonly event: Json.JsonObject
  /** Every route that may receive the event. */
  readonly routes: ReadonlyArray<Registry.Route>
  readonly sources: Readonly<Record<string, Attachment.Source>> | undefined
  readonly maxBytes: number
  readonly timeoutMs: number
  readonly uploads: Option.Option<Uploads.Uploads["Type"]>
  /** Shared by every call of the service: bounds the uploads in flight. */
  readonly permits: Effect.Semaphore
}

const own = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined

/** The ids of the attachments some route receives as `body`, in the order they first appear. */
const needed = (options: Options): Array<string> => {
  const ids = new Set<string>()
  for (const route of options.routes) {
    for (const pending of Projection.project(options.boundary, options.event, route.subscriber).pendingUploads) {
      ids.add(pending.id)
    }
  }
  return [...ids]
}

/**
 * Snapshots the needed sources, one after another: each gets what is left of the byte
 * budget and of the time bound. A failed snapshot is kept as the failure of every delivery
 * that needs it.
 */
const snapshots = (options: Options): Effect.Effect<Snapshots> =>
  Effect.gen(function*() {
    const taken = new Map<string, Either.Either<Attachment.Snapshot, Attachment.AttachmentError>>()
    const sources = options.sources
    if (sources === undefined) return taken
    const ids = needed(options).filter((id) => own(sources, id) !== undefined)
    if (ids.length === 0) return taken
    const until = (yield* Clock.currentTimeMillis) + options.timeoutMs
    let budget = options.maxBytes
    for (const id of ids) {
      const left = Math.max(0, until - (yield* Clock.currentTimeMillis))
      const result = yield* Effect.either(
        Attachment.snapshot(id, own(sources, id)!, { maxBytes: budget, timeoutMs: left })
      )
      if (Either.isRight(result)) budget -= result.right.size
      taken.set(id, result)
    }
    return taken
  })

const uploadError = (reason: Uploads.UploadFailure, detail: string) => new Uploads.UploadError({ reason, detail })

/**
 * Takes the call's snapshots and returns how each subscription gets its references: every
 * pending attachment uploaded to the subscription's own endpoint (concurrently, under the
 * shared permits), all of them within `upload.timeoutMs`, each receipt checked against the
 * snapshot.
 *
 * @internal
 */
export const make = (options: Options): Effect.Effect<Prepare> =>
  options.sources === undefined
    ? Effect.succeed(withoutSources(options))
    : Effect.map(snapshots(options), (taken) => withSnapshots(options, taken))

/**
 * `make` for a call given no attachment sources, at once: there is nothing to snapshot, so
 * a subscription that selects an attachment as body fails with `attachment-missing`.
 *
 * @internal
 */
export const withoutSources = (options: Options): Prepare => withSnapshots(options, none)

type Snapshots = ReadonlyMap<string, Either.Either<Attachment.Snapshot, Attachment.AttachmentError>>

const none: Snapshots = new Map()

/** How each subscription gets its references, given the call's snapshots. */
const withSnapshots = (options: Options, taken: Snapshots): Prepare => (route, pending) =>
  Effect.suspend((): Effect.Effect<ReadonlyMap<string, string>, PrepareError> => {
    const ids = [...new Set(pending.map((p) => p.id))]
    const ready: Array<readonly [string, Attachment.Snapshot]> = []
    for (const id of ids) {
      const snapshot = taken.get(id)
      if (snapshot === undefined) {
        return Effect.fail(
          new Attachment.AttachmentError({
            reason: "attachment-missing",
            detail: `no source was supplied for attachment ${id}`
          })
        )
      }
      if (Either.isLeft(snapshot)) return Effect.fail(snapshot.left)
      ready.push([id, snapshot.right])
    }
    const config = route.subscription.upload
    if (config === undefined) {
      return Effect.fail(
        uploadError("upload-unconfigured", "the subscription selects attachments as body but has no upload endpoint")
      )
    }
    if (Option.isNone(options.uploads)) {
      return Effect.fail(uploadError("upload-unavailable", "no upload client is available in this runtime"))
    }
    const uploads = options.uploads.value
    const maxBytes = Json.toNumber(config.maxBytes)
    const timeoutMs = Json.toNumber(config.timeoutMs)
    const tooLarge = ready.find(([, snapshot]) => snapshot.size > maxBytes)
    if (tooLarge !== undefined) {
      return Effect.fail(
        uploadError("upload-too-large", `attachment ${tooLarge[0]} exceeds the upload limit of ${maxBytes} bytes`)
      )
    }
    return Effect.forEach(ready, ([id, snapshot]) =>
      options.permits.withPermits(1)(
        uploads.upload({ backend: route.backend.id, subscription: route.label, config, snapshot })
      ).pipe(
        Effect.flatMap((receipt) => {
          const problem = Uploads.verify(receipt, snapshot)
          return problem === undefined ? Effect.succeed([id, receipt.ref] as const) : Effect.fail(problem)
        })
      ), { concurrency: "unbounded" }).pipe(
        Effect.timeoutFail({
          duration: Duration.millis(timeoutMs),
          onTimeout: () => uploadError("upload-timeout", `the uploads did not complete within ${timeoutMs} ms`)
        }),
        Effect.map((refs): ReadonlyMap<string, string> => new Map(refs))
      )
  })
