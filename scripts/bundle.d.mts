/** The repository root. */
export declare const root: string
/** Writes `<outdir>/ahp.mjs` and `<outdir>/chunks/`; returns the entry and the chunk names. */
export declare const bundle: (
  outdir: string
) => Promise<{ readonly entry: string; readonly chunks: ReadonlyArray<string> }>
/** `<outdir>/ahp.mjs`, bundled first when it is missing or older than a source or scripts/bundle.mjs. */
export declare const freshBundle: (outdir: string) => Promise<string>
/** The files of the bundle in `outdir` (`ahp.mjs` and the chunks it loads), relative to it. */
export declare const bundleFiles: (outdir: string) => ReadonlyArray<string>
