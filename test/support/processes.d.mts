/** A running process, as `ps` lists it. */
export interface ProcessEntry {
  readonly pid: number
  /** The `ps` state (`Z` for an unreaped zombie). */
  readonly stat: string
  readonly args: string
}

/** The processes (pid and command line) whose command line contains `marker`, this process excluded. */
export declare const processesWith: (marker: string) => Array<ProcessEntry>
