/**
 * The command hook's cold path as the command line runs it: the hook package's `Cold` with
 * the command line's OpenTelemetry export.
 *
 * @internal
 */
import type * as Cold from "@effect-ahp/hook/Cold"
import * as Audit from "@effect-ahp/tools/Audit"

/**
 * The command hook's cold path, loaded on the first call.
 *
 * @internal
 */
export const cold = (): Promise<typeof Cold> =>
  import("@effect-ahp/hook/Cold").then((Cold) => ({
    ...Cold,
    run: (request) => Cold.run({ ...request, telemetry: request.telemetry ?? Audit.telemetry })
  }))
