/** A published package's tarball. */
export interface Packed {
  readonly name: string
  readonly version: string
  readonly tarball: string
}
/** A workspace package as `pnpm -r ls` lists it. */
export interface WorkspacePackage {
  readonly name: string
  readonly version?: string
  readonly path: string
  readonly private: boolean
}
/** Packs every published package into `dest` with `pnpm -r pack` (each built first by its prepack script). */
export declare const pack: (dest: string) => Promise<ReadonlyArray<Packed>>
/** The workspace's packages, the root's included. */
export declare const workspacePackages: () => ReadonlyArray<WorkspacePackage>
