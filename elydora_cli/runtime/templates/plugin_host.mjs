// A stand-in for an OpenCode-style plugin host (OpenCode, Kilo Code), used by `elydora verify` and the tests
// to run installed plugin modules the way the agent does, under node:
//
//   node plugin_host.mjs [--host AGENT] HOOK MODULE... < event.json
//
// It loads each MODULE as the agent's loader does (every export is a plugin function, called with the
// plugin input), then calls every plugin's HOOK (`tool.execute.before` or `tool.execute.after`) with the
// native (input, output) pair cut from the one flat JSON event on stdin. A throw from a hook is the agent's
// block: its message goes to stderr and the exit status is BLOCK_EXIT. `--host AGENT` makes this process
// look like that agent (its PID variable names this process). Before exiting, it waits (boundedly) for the
// child processes the plugins started, so that a caller can look at what they recorded.
import { createRequire, syncBuiltinESMExports } from "node:module";
import { pathToFileURL } from "node:url";

const BLOCK_EXIT = 2;
const USAGE_EXIT = 64;
const CHILD_WAIT_MS = 10000;
const HOST_PIDS = {"opencode": "OPENCODE_PID", "kilo": "KILO_PID"};
const SHAPES = {
  "tool.execute.before": { input: ["tool", "sessionID", "callID"], output: ["args"] },
  "tool.execute.after": { input: ["tool", "sessionID", "callID", "args"], output: ["title", "output", "metadata"] },
};

const require = createRequire(import.meta.url);
const childProcess = require("node:child_process");
const started = [];
const originalSpawn = childProcess.spawn;
childProcess.spawn = (...args) => {
  const child = originalSpawn(...args);
  started.push(new Promise((resolve) => child.on("close", resolve).on("error", resolve)));
  return child;
};
syncBuiltinESMExports();

function pick(event, keys) {
  return Object.fromEntries(keys.filter((key) => key in event).map((key) => [key, event[key]]));
}

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function main(argv) {
  let host = null;
  if (argv[0] === "--host") [, host, ...argv] = argv;
  const [hook, ...modules] = argv;
  if (!SHAPES[hook] || modules.length === 0 || (host !== null && !HOST_PIDS[host])) {
    process.stderr.write("usage: plugin_host.mjs [--host opencode|kilo] tool.execute.before|after MODULE...\n");
    return USAGE_EXIT;
  }
  if (host !== null) process.env[HOST_PIDS[host]] = String(process.pid);
  const event = await readStdin();
  const directory = typeof event.cwd === "string" ? event.cwd : process.cwd();
  const context = { directory, worktree: directory, project: {}, client: {}, serverUrl: new URL("http://127.0.0.1:4096") };
  const hooks = [];
  for (const file of modules) {
    const loaded = await import(pathToFileURL(file).href);
    for (const plugin of new Set(Object.values(loaded))) hooks.push(await plugin(context, {}));
  }
  let code = 0;
  for (const found of hooks) {
    if (typeof found[hook] !== "function") continue;
    const input = pick(event, SHAPES[hook].input);
    const output = pick(event, SHAPES[hook].output);
    try {
      await found[hook](input, output);
    } catch (error) {
      process.stderr.write(`${error?.message ?? error}\n`);
      code = BLOCK_EXIT;
      break;
    }
  }
  let timer;
  const bound = new Promise((resolve) => (timer = setTimeout(resolve, CHILD_WAIT_MS)));
  await Promise.race([Promise.all(started), bound]);
  clearTimeout(timer);
  return code;
}

process.exitCode = await main(process.argv.slice(2));
