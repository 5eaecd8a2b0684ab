// Reruns the real-host suite against other versions of the hosts:
//
//   node test/hosts/rerun.mjs --claude-code VERSION --codex VERSION [--dry-run]
//
// installs `@anthropic-ai/claude-code@VERSION` and `@openai/codex@VERSION` (a host not named
// keeps the version test/hosts pins) with npm into a temporary folder, without their install
// scripts (the suite runs the platform packages' binaries directly), then runs
// `pnpm test --project hosts` from the repository's root with AHP_HOSTS_FROM naming that
// folder (test/hosts/src/Hosts.ts reads it), and exits with the suite's exit code, the
// folder removed. `--dry-run` prints the two commands and runs neither. A bad argument
// exits 2, naming it.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const here = dirname(fileURLToPath(import.meta.url))
const root = join(here, "..", "..")
const pinned = JSON.parse(readFileSync(join(here, "package.json"), "utf8")).devDependencies
const hosts = { "--claude-code": "@anthropic-ai/claude-code", "--codex": "@openai/codex" }
const usage = "usage: node test/hosts/rerun.mjs [--claude-code VERSION] [--codex VERSION] [--dry-run]"

const fail = (message) => {
  process.stderr.write(`rerun: ${message}\n${usage}\n`)
  process.exit(2)
}

const chosen = Object.fromEntries(Object.values(hosts).map((name) => [name, pinned[name]]))
let dryRun = false
const args = process.argv.slice(2)
for (let i = 0; i < args.length; i++) {
  const arg = args[i]
  if (arg === "--dry-run") {
    dryRun = true
  } else if (Object.hasOwn(hosts, arg)) {
    const version = args[++i]
    if (version === undefined || !/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version)) {
      fail(
        `${arg} needs an exact version (like 1.2.3), not ${version === undefined ? "nothing" : JSON.stringify(version)}`
      )
    }
    chosen[hosts[arg]] = version
  } else {
    fail(`unknown argument ${JSON.stringify(arg)}`)
  }
}

const specs = Object.entries(chosen).map(([name, version]) => `${name}@${version}`)
const folder = dryRun ? "<folder>" : mkdtempSync(join(tmpdir(), "ahp-hosts-"))
const install = ["npm", "install", "--prefix", folder, "--no-audit", "--no-fund", "--ignore-scripts", ...specs]
const suite = ["pnpm", "test", "--project", "hosts"]
if (dryRun) {
  process.stdout.write(`${install.join(" ")}\nAHP_HOSTS_FROM=${folder} ${suite.join(" ")}\n`)
  process.exit(0)
}
let status = 1
try {
  writeFileSync(join(folder, "package.json"), "{\"private\":true}\n")
  const installed = spawnSync(install[0], install.slice(1), { stdio: "inherit" })
  if (installed.status !== 0) {
    process.stderr.write(`rerun: ${install.join(" ")} failed\n`)
  } else {
    const ran = spawnSync(suite[0], suite.slice(1), {
      cwd: root,
      stdio: "inherit",
      env: { ...process.env, AHP_HOSTS_FROM: folder }
    })
    status = ran.status ?? 1
  }
} finally {
  rmSync(folder, { recursive: true, force: true })
}
process.exit(status)
