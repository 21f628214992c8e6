#!/usr/bin/env node
// Checked before anything else is loaded: on an older Node, one clear line
// and exit 1 instead of a syntax or import error from a dependency.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `bula needs Node.js 22.12 or later (the supported lines are 22, 24 and 26); this is Node.js ${process.versions.node}.\n` +
      'Install a current Node.js from https://nodejs.org or with your version manager (nvm install 24, fnm use 24).\n',
  )
  process.exit(1)
}

// A reader that stops early (`bula events list | head -1`, a script that
// reads `bula listen`'s ready line) closes the pipe. oclif swallows the
// EPIPE and carries on: a follower (listen, logs tail) ran on with no reader,
// and any other command waited in oclif's final flush until Node gave up with
// exit 13 and a warning. bula stops instead, quietly, with the code a shell
// gives a process killed by SIGPIPE (128 + 13), as `git log | head -1`. A
// command that stops on a signal (serve, exec, listen, logs tail) is stopped
// as Ctrl-C stops it, so that `bula serve` still answers its in-flight
// requests, writes --export-on-exit and removes its lock; any other stops at once.
let pipeClosed = false
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code !== 'EPIPE') throw error
    if (pipeClosed) return
    pipeClosed = true
    process.exitCode = 141
    if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM')
    else process.exit(141)
  })
}

// `bula serve` runs with a few Node.js options of its own (its memory,
// docs/performance.md): the process replaces itself with one started with
// them, keeping its pid, before anything else is loaded. Where Node cannot
// (Windows, Node before 22.15) it runs as it was started.
if (process.argv[2] === 'serve' && typeof process.execve === 'function' && process.platform !== 'win32') {
  const { missingServeFlags } = await import('../dist/src/cli/serve-node-flags.js')
  const flags = missingServeFlags(process.execArgv, process.env.NODE_OPTIONS)
  if (flags.length > 0) process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], process.env)
}

// Node keeps the compiled code of bula and its dependencies here, so the next
// command starts faster (docs/performance.md). Delete the folder at any time;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
const { enableCompileCache } = await import('node:module')
const { tmpdir } = await import('node:os')
const { join } = await import('node:path')
enableCompileCache(join(tmpdir(), 'bula-compile-cache'))

// The version was checked above; oclif's own check loads semver for it, about 5 ms of every command's start.
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'
const { execute, settings } = await import('@oclif/core')
delete process.env.OCLIF_DISABLE_ENGINE_WARNING
// oclif maps dist/ back to the TypeScript sources when NODE_ENV is test or
// development (vitest sets it); the built files are the ones to run.
settings.enableAutoTranspile = false

await execute({ dir: import.meta.url })
