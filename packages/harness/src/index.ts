/**
 * @since 0.1.0
 */

/**
 * Attachment sources supplied by the host, and their immutable snapshots.
 *
 * @since 0.1.0
 */
export * as Attachment from "./Attachment.js"

/**
 * The decision audit: one record per settled call, off the decision's critical path.
 *
 * @since 0.1.0
 */
export * as Audit from "./Audit.js"

/**
 * The decision as OpenTelemetry: the attributes the live spans carry (`ahp.call` the decision
 * and failure codes, `ahp.interceptor` each step's outcome), and an audit sink writing a log
 * record per audit record.
 *
 * @since 0.1.0
 */
export * as AuditTelemetry from "./AuditTelemetry.js"

/**
 * The boundary table: what each event type permits and where its content lives.
 *
 * @since 0.1.0
 */
export * as Boundary from "./Boundary.js"

/**
 * The serial interceptor chain.
 *
 * @since 0.1.0
 */
export * as Chain from "./Chain.js"

/**
 * A Promise facade over Hooks for hosts that do not use Effect.
 *
 * @since 0.1.0
 */
export * as Client from "./Client.js"

/**
 * The result of one boundary call and its JSON form.
 *
 * @since 0.1.0
 */
export * as DispatchResult from "./DispatchResult.js"

/**
 * The modification algebra.
 *
 * @since 0.1.0
 */
export * as Edit from "./Edit.js"

/**
 * What the host can enforce: grants, per-call narrowing, per-step capabilities.
 *
 * @since 0.1.0
 */
export * as Grant from "./Grant.js"

/**
 * The Hooks service hosts call at every boundary.
 *
 * @since 0.1.0
 */
export * as Hooks from "./Hooks.js"

/**
 * Observation delivery after settlement.
 *
 * @since 0.1.0
 */
export * as Observation from "./Observation.js"

/**
 * Per-subscription content selection.
 *
 * @since 0.1.0
 */
export * as Projection from "./Projection.js"

/**
 * Registration compilation and routes.
 *
 * @since 0.1.0
 */
export * as Registry from "./Registry.js"

/**
 * Typed records of failed routes.
 *
 * @since 0.1.0
 */
export * as RouteFailure from "./RouteFailure.js"

/**
 * The pending decision state and settlement.
 *
 * @since 0.1.0
 */
export * as Settlement from "./Settlement.js"

/**
 * Whole-response atomic acceptance.
 *
 * @since 0.1.0
 */
export * as Staging from "./Staging.js"

/**
 * Spans that cost nothing unless a tracer is installed.
 *
 * @since 0.1.0
 */
export * as Tracing from "./Tracing.js"

/**
 * The transport service interface and the in-process transport.
 *
 * @since 0.1.0
 */
export * as Transport from "./Transport.js"

/**
 * The attachment upload service, its errors and an in-memory test double.
 *
 * @since 0.1.0
 */
export * as Uploads from "./Uploads.js"
