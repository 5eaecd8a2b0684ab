import { Http } from "@effect-ahp/backend"
import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { PolicyBackend } from "./backend.js"

// The same backend over HTTP on 127.0.0.1:8787 (POST /hooks).
Layer.launch(Http.serve(PolicyBackend, { port: 8787, path: "/hooks" })).pipe(NodeRuntime.runMain)
