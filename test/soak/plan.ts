/**
 * What a soak epoch does and what it must decide. An epoch is a set of scripted backends
 * (stdio persistent, stdio per-event, HTTP), each with a failure policy and a random
 * `--sequence` of behaviours — healthy answers, and hangs, crashes, garbage, slow replies,
 * JSON-RPC errors, 500s and resets, answers nested deeper than the harness reads, merges of
 * numbers no JavaScript number holds, per-event children that answer and then exit 1 —
 * that its requests (and, for HTTP, its downgraded observe notifications) consume one by
 * one; some stdio backends also hold a grandchild that ignores SIGTERM. Some dispatches
 * carry a body-selected attachment: each backend then first gets it uploaded to its own
 * upload endpoint, whose scripted `uploads` sequence (receipts, wrong hashes, 202s,
 * redirects, 500s, resets, hangs) decides whether the delivery goes ahead. `replay` applies
 * the chain's rules (written out here, not taken from the harness) to the next behaviour
 * of each backend to compute the decision every dispatch must reach.
 */

/** How a backend is reached. */
export type Kind = "stdio" | "per_event" | "http"

/** What one behaviour does to a request. */
export type Outcome =
  | { readonly _tag: "Answer"; readonly effect: "none" | "allow" | "ask" | "deny" | "merge" }
  | { readonly _tag: "Failure"; readonly code: string }

/** One scripted behaviour: its `--sequence` entry (before placeholders are filled in). */
export interface Behaviour {
  readonly name: string
  readonly entry: string
  readonly outcome: Outcome
  readonly kinds: ReadonlyArray<Kind>
  readonly weight: number
}

const all: ReadonlyArray<Kind> = ["stdio", "per_event", "http"]
const stdio: ReadonlyArray<Kind> = ["stdio", "per_event"]
const answer = (effect: Extract<Outcome, { _tag: "Answer" }>["effect"]): Outcome => ({ _tag: "Answer", effect })
const fault = (code: string): Outcome => ({ _tag: "Failure", code })

/**
 * The deadline of every subscription in the soak (ms). Starting a backend process counts
 * against it, so it leaves room for a slow start on a busy machine.
 */
export const timeoutMs = 2000

/** `MERGE_KEY` in an entry is replaced by a key unique to the request. */
const mergeEntry = `effects=[{"type":"modify","target":"input","operation":"merge","value":{"MERGE_KEY":true}}]`

/**
 * The value a "huge numbers" merge adds, verbatim: integers beyond 2^53 and 2^70, a literal
 * that overflows a double, one that underflows it, and a 34-digit fraction. Every request
 * and notification after the merge must carry it exactly as written here.
 */
export const hugeValue =
  "[9007199254740993,1e400,-1e-400,0.1000000000000000000000000000000001,1180591620717411303424,42]"

/** Nesting of a "deep" answer: over the harness's limit of 512 levels. */
export const deepLevels = 600

/** The catalogue, with relative weights. */
export const behaviours: ReadonlyArray<Behaviour> = [
  { name: "ok", entry: "ok", outcome: answer("none"), kinds: all, weight: 40 },
  { name: "allow", entry: `effects=[{"type":"allow"}]`, outcome: answer("allow"), kinds: all, weight: 8 },
  { name: "ask", entry: `effects=[{"type":"ask"}]`, outcome: answer("ask"), kinds: all, weight: 4 },
  { name: "deny", entry: "deny=soak", outcome: answer("deny"), kinds: all, weight: 4 },
  { name: "merge", entry: mergeEntry, outcome: answer("merge"), kinds: all, weight: 6 },
  { name: "slow", entry: "late=30", outcome: answer("none"), kinds: all, weight: 6 },
  { name: "error", entry: "error=-32000", outcome: fault("jsonrpc-error"), kinds: all, weight: 3 },
  { name: "hang", entry: "hang", outcome: fault("timeout"), kinds: all, weight: 1 },
  { name: "too late", entry: `late=${timeoutMs * 3}`, outcome: fault("timeout"), kinds: all, weight: 0.5 },
  { name: "wrong id first", entry: "wrong-id", outcome: answer("none"), kinds: stdio, weight: 3 },
  { name: "crash", entry: "exit-mid", outcome: fault("exited"), kinds: stdio, weight: 3 },
  { name: "garbage", entry: "garbage", outcome: fault("malformed"), kinds: stdio, weight: 3 },
  { name: "500", entry: "500", outcome: fault("status"), kinds: ["http"], weight: 3 },
  { name: "reset", entry: "reset", outcome: fault("connection"), kinds: ["http"], weight: 3 },
  { name: "invalid json", entry: "invalid-json", outcome: fault("malformed"), kinds: ["http"], weight: 2 },
  { name: "too deep", entry: `deep=${deepLevels}`, outcome: fault("malformed"), kinds: all, weight: 2 },
  {
    name: "huge numbers",
    entry: `raw-effects=[{"type":"modify","target":"input","operation":"merge","value":{"MERGE_KEY":${hugeValue}}}]`,
    outcome: answer("merge"),
    kinds: all,
    weight: 3
  },
  // The answer arrives, but a per_event child that then exits nonzero is a failure.
  { name: "allow, then exit 1", entry: "allow-exit=1", outcome: fault("exited"), kinds: ["per_event"], weight: 4 }
]

/** What the upload endpoint does with one upload, and the route failure it must cause. */
export interface UploadBehaviour {
  readonly name: "receipt" | "wrong hash" | "wrong size" | "202" | "redirect" | "500" | "reset" | "hang"
  /** The failure code, or `undefined` when the receipt confirms the upload. */
  readonly code: string | undefined
  readonly weight: number
}

/** The bound of every upload (ms); below `timeoutMs`, so a hung upload fails as an upload. */
export const uploadTimeoutMs = 600

/** The upload endpoint's catalogue, with relative weights. */
export const uploadBehaviours: ReadonlyArray<UploadBehaviour> = [
  { name: "receipt", code: undefined, weight: 70 },
  { name: "wrong hash", code: "upload-receipt", weight: 5 },
  { name: "wrong size", code: "upload-receipt", weight: 3 },
  { name: "202", code: "upload-status", weight: 5 },
  { name: "redirect", code: "upload-redirect", weight: 4 },
  { name: "500", code: "upload-status", weight: 5 },
  { name: "reset", code: "upload-connection", weight: 4 },
  { name: "hang", code: "upload-timeout", weight: 1 }
]

/** An upload that went past its deadline, whatever its endpoint was planned to do. */
const lateUpload: UploadBehaviour = { name: "hang", code: "upload-timeout", weight: 0 }

/** A seeded pseudo-random source (mulberry32), so a failing run can be replayed. */
export const random = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    chance: (p: number) => next() < p,
    pick: <A>(items: ReadonlyArray<A>): A => items[Math.floor(next() * items.length)]!
  }
}

/** A random source. */
export type Random = ReturnType<typeof random>

/** One backend of an epoch. */
export interface BackendPlan {
  readonly id: string
  readonly kind: Kind
  readonly policy: "fail-open" | "fail-closed"
  /** The behaviour of its 1st, 2nd, … request or notification. */
  readonly sequence: ReadonlyArray<Behaviour>
  /** The `--sequence` argument (placeholders filled in). */
  readonly sequenceArg: string
  /** Whether its processes hold a grandchild that ignores SIGTERM (stdio only). */
  readonly grandchild: boolean
  /** What its upload endpoint does with its 1st, 2nd, … upload. */
  readonly uploads: ReadonlyArray<UploadBehaviour>
}

/** One of `eligible`, drawn by weight. */
export const weighted = <A extends { readonly weight: number }>(rng: Random, eligible: ReadonlyArray<A>): A => {
  let ticket = rng.next() * eligible.reduce((sum, b) => sum + b.weight, 0)
  for (const b of eligible) {
    ticket -= b.weight
    if (ticket < 0) return b
  }
  return eligible[0]!
}

const draw = (rng: Random, kind: Kind): Behaviour => weighted(rng, behaviours.filter((b) => b.kinds.includes(kind)))

/** The merge key the `n`th (0-based) request of a backend adds to the tool input. */
export const mergeKey = (backendId: string, n: number) => `${backendId.replaceAll(".", "_")}_${n}`

/** Plans one backend for `length` dispatches. */
export const planBackend = (rng: Random, id: string, kind: Kind, length: number): BackendPlan => {
  const sequence = Array.from({ length }, () => draw(rng, kind))
  return {
    id,
    kind,
    policy: rng.chance(0.5) ? "fail-open" : "fail-closed",
    sequence,
    sequenceArg: sequence.map((b, n) => b.entry.replace("MERGE_KEY", mergeKey(id, n))).join(","),
    grandchild: kind !== "http" && rng.chance(0.3),
    uploads: Array.from({ length }, () => weighted(rng, uploadBehaviours))
  }
}

/** The merge keys whose value is `hugeValue`: one per "huge numbers" request of each backend. */
export const hugeKeys = (backends: ReadonlyArray<BackendPlan>): ReadonlyArray<string> =>
  backends.flatMap((b) =>
    b.sequence.flatMap((behaviour, n) => behaviour.name === "huge numbers" ? [mergeKey(b.id, n)] : [])
  )

/** The decision a dispatch must reach (the comparable part of it). */
export interface Expected {
  readonly permission: "none" | "allow" | "ask" | "deny"
  /** For a denial: whether it is synthetic, and which backend it came from. */
  readonly denial: { readonly synthetic: boolean; readonly backend: string } | undefined
  /** Failed routes in order: backend and code. */
  readonly failures: ReadonlyArray<string>
  /** Members merged into the tool input, in order. */
  readonly merged: ReadonlyArray<string>
}

const rank = { none: 0, allow: 1, ask: 2, deny: 3 } as const
const stronger = (a: Expected["permission"], b: Expected["permission"]) => (rank[a] >= rank[b] ? a : b)

/** One dispatch replayed. */
export interface Replay {
  /** The states after 0, 1, … routes: the last is the decision. */
  readonly states: ReadonlyArray<Expected>
  /** What each backend did, for diagnostics. */
  readonly steps: ReadonlyArray<string>
}

/**
 * Replays one dispatch over the backends (in registration order), consuming each
 * backend's next behaviour from `cursors`: a request for every route the chain reaches,
 * and for an HTTP route it never reaches after a denial, the observe notification it gets
 * instead (the scripted HTTP backend counts every POST). With an attachment, every
 * delivery — request or notification, to any kind of backend — first consumes the
 * backend's next upload; a failed upload sends nothing and, for a request, fails the
 * route with the upload's code under the backend's policy.
 *
 * `late` names the backends whose request (`timeout`) or upload (`upload-timeout`) went
 * past its deadline although the plan had them answer in time — what a machine too busy to
 * keep the plan's timing does: the replay then expects that failure instead of the answer.
 */
export const replay = (
  backends: ReadonlyArray<BackendPlan>,
  cursors: Map<string, number>,
  attached = false,
  late: ReadonlyMap<string, "timeout" | "upload-timeout"> = new Map()
): Replay => {
  let state: Expected = { permission: "none", denial: undefined, failures: [], merged: [] }
  const states: Array<Expected> = [state]
  const steps: Array<string> = []
  const next = (b: BackendPlan) => {
    const n = cursors.get(b.id) ?? 0
    cursors.set(b.id, n + 1)
    return { n, behaviour: b.sequence[n] }
  }
  const upload = (b: BackendPlan): UploadBehaviour | undefined => {
    if (!attached) return undefined
    const n = cursors.get(`${b.id}/upload`) ?? 0
    cursors.set(`${b.id}/upload`, n + 1)
    return b.uploads[n] ?? uploadBehaviours[0]
  }
  for (const backend of backends) {
    if (state.permission === "deny") {
      const uploaded = upload(backend)
      if (backend.kind === "http" && uploaded?.code === undefined) next(backend)
      steps.push(
        `${backend.id} (${backend.kind}) not reached${uploaded === undefined ? "" : `, upload: ${uploaded.name}`}`
      )
      continue
    }
    const planned = upload(backend)
    const uploaded = late.get(backend.id) === "upload-timeout" ? lateUpload : planned
    const { behaviour, n } = uploaded?.code === undefined ? next(backend) : { behaviour: undefined, n: -1 }
    steps.push(
      `${backend.id} (${backend.kind}, ${backend.policy}): ${
        uploaded === undefined ? "" : `upload: ${uploaded.name}, `
      }${uploaded?.code === undefined ? behaviour?.name ?? "ok" : "not sent"}`
    )
    const outcome = uploaded?.code !== undefined
      ? fault(uploaded.code)
      : late.get(backend.id) === "timeout"
      ? fault("timeout")
      : behaviour?.outcome ?? answer("none")
    if (outcome._tag === "Failure") {
      const failures = [...state.failures, `${backend.id}:${outcome.code}`]
      state = backend.policy === "fail-closed"
        ? { ...state, failures, permission: "deny", denial: state.denial ?? { synthetic: true, backend: backend.id } }
        : { ...state, failures }
    } else {
      switch (outcome.effect) {
        case "none":
          break
        case "deny":
          state = { ...state, permission: "deny", denial: state.denial ?? { synthetic: false, backend: backend.id } }
          break
        case "allow":
        case "ask":
          state = { ...state, permission: stronger(state.permission, outcome.effect) }
          break
        case "merge":
          // A change of the tool input invalidates an earlier allow.
          state = {
            ...state,
            permission: state.permission === "allow" ? "none" : state.permission,
            merged: [...state.merged, mergeKey(backend.id, n)]
          }
          break
      }
    }
    states.push(state)
  }
  return { states, steps }
}
