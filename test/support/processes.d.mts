/** A running process, as /proc (or `ps`) lists it. */
export interface ProcessEntry {
  readonly pid: number
  /** Its state (`Z` for an unreaped zombie). */
  readonly stat: string
  readonly args: string
}

/** The processes (pid, state and command line) whose command line contains `marker`, this process excluded. */
export declare const processesWith: (marker: string) => Array<ProcessEntry>
