// A stand-in for an OpenCode-style plugin host (OpenCode, Kilo Code) and for Pi's extension host, used by
// `elydora verify` and the tests to run installed plugin modules the way the agent does, under node:
//
//   node plugin_host.mjs [--host AGENT] HOOK MODULE... < event.json
//
// For `tool.execute.before` or `tool.execute.after` it loads each MODULE as OpenCode's loader does (every
// export is a plugin function, called with the plugin input), then calls every plugin's HOOK with the native
// (input, output) pair cut from the one flat JSON event on stdin. For Pi's `tool_call` or `tool_result` it
// calls each MODULE's default export with an extension API whose `on` collects the handlers of HOOK, then
// calls them with the event (the flat event less `hook_event_name`, `cwd` and `session_id`, which make up the
// handler's context). A throw from a hook, or Pi's `{ block: true, reason }`, is the agent's block: its
// message goes to stderr and the exit status is BLOCK_EXIT. `--host AGENT` makes this process look like that
// agent (its PID variable names this process). Before exiting, it waits (boundedly) for the child processes
// the plugins started, so that a caller can look at what they recorded.
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
const PI_HOOKS = ["tool_call", "tool_result"];
const CONTEXT_KEYS = ["hook_event_name", "cwd", "session_id"];

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

// Pi: each module's default export, called with an extension API that keeps the handlers of `hook`.
async function piHandlers(hook, modules) {
  const handlers = [];
  const pi = { on: (name, handler) => (name === hook ? handlers.push(handler) : undefined) };
  for (const file of modules) {
    const loaded = await import(pathToFileURL(file).href);
    if (typeof loaded.default === "function") await loaded.default(pi);
  }
  return handlers;
}

async function runPi(hook, modules, event) {
  const handlers = await piHandlers(hook, modules);
  const native = Object.fromEntries(Object.entries(event).filter(([key]) => !CONTEXT_KEYS.includes(key)));
  const cwd = typeof event.cwd === "string" ? event.cwd : process.cwd();
  const ctx = { cwd, hasUI: false, sessionManager: { getSessionId: () => event.session_id } };
  for (const handler of handlers) {
    try {
      const result = await handler(native, ctx);
      if (result?.block) {
        process.stderr.write(`${result.reason ?? "Tool execution was blocked"}\n`);
        return BLOCK_EXIT;
      }
    } catch (error) {
      process.stderr.write(`${error?.message ?? error}\n`);
      return BLOCK_EXIT;
    }
  }
  return 0;
}

async function waitForChildren() {
  let timer;
  const bound = new Promise((resolve) => (timer = setTimeout(resolve, CHILD_WAIT_MS)));
  await Promise.race([Promise.all(started), bound]);
  clearTimeout(timer);
}

async function main(argv) {
  let host = null;
  if (argv[0] === "--host") [, host, ...argv] = argv;
  const [hook, ...modules] = argv;
  const known = SHAPES[hook] || PI_HOOKS.includes(hook);
  if (!known || modules.length === 0 || (host !== null && !HOST_PIDS[host])) {
    process.stderr.write(
      "usage: plugin_host.mjs [--host opencode|kilo] tool.execute.before|after|tool_call|tool_result MODULE...\n",
    );
    return USAGE_EXIT;
  }
  if (host !== null) process.env[HOST_PIDS[host]] = String(process.pid);
  const event = await readStdin();
  if (PI_HOOKS.includes(hook)) {
    const code = await runPi(hook, modules, event);
    await waitForChildren();
    return code;
  }
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
  await waitForChildren();
  return code;
}

process.exitCode = await main(process.argv.slice(2));
