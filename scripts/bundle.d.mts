/** The repository root. */
export declare const root: string
/** The folders and files whose contents go into the bundle. */
export declare const sources: ReadonlyArray<string>
/** Writes `<outdir>/ahp.mjs` and `<outdir>/chunks/`; returns the entry and the chunk names. */
export declare const bundle: (
  outdir: string
) => Promise<{ readonly entry: string; readonly chunks: ReadonlyArray<string> }>
/** Removes the chunks of earlier builds that `keep` does not list. */
export declare const pruneChunks: (outdir: string, keep: ReadonlyArray<string>) => void
