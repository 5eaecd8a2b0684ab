/**
 * An arbitrary built on first use. The module-level arbitraries (`Json.arbitrary`,
 * `Arbitraries.interceptableEvent`, `Arbitraries.registration`) derive from large schemas;
 * building them when the package is imported cost every importer close to a second.
 *
 * @internal
 */
import * as FastCheck from "effect/FastCheck"

class Lazy<A> extends FastCheck.Arbitrary<A> {
  #built: FastCheck.Arbitrary<A> | undefined
  readonly #build: () => FastCheck.Arbitrary<A>
  constructor(build: () => FastCheck.Arbitrary<A>) {
    super()
    this.#build = build
  }
  get #arbitrary(): FastCheck.Arbitrary<A> {
    return this.#built ??= this.#build()
  }
  generate(random: FastCheck.Random, biasFactor: number | undefined): FastCheck.Value<A> {
    return this.#arbitrary.generate(random, biasFactor)
  }
  canShrinkWithoutContext(value: unknown): value is A {
    return this.#arbitrary.canShrinkWithoutContext(value)
  }
  shrink(value: A, context: unknown): FastCheck.Stream<FastCheck.Value<A>> {
    return this.#arbitrary.shrink(value, context)
  }
}

/** The arbitrary `build` returns, built when a value is first generated or shrunk. */
export const lazy = <A>(build: () => FastCheck.Arbitrary<A>): FastCheck.Arbitrary<A> => new Lazy(build)
