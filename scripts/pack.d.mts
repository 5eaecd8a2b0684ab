/** The folders of the packages that are published. */
export declare const packageDirs: ReadonlyArray<string>
/** Builds every package and packs it into `dest`; resolves with the tarballs' paths. */
export declare const pack: (dest: string) => Promise<ReadonlyArray<string>>
