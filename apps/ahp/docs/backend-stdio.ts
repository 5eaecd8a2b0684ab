import { Stdio } from "@effect-ahp/backend"
import { PolicyBackend } from "./backend.js"

// bin.ts of a stdio backend: JSON lines on stdin/stdout, logs on stderr.
Stdio.run(PolicyBackend)
