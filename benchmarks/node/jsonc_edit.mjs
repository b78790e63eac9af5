// One edit with VS Code's jsonc-parser, timed like benchmarks/editors.py times ours:
// UTF-8 bytes in memory -> text -> modify() + applyEdits() -> UTF-8 bytes.
// Usage: node jsonc_edit.mjs <node_modules dir> <file> <json path>
// then one command per line on stdin, each answered by one line on stdout:
//   "warm <seconds>"  edit untimed for that long (at least 5 times): V8 compiles the hot functions
//                     while they run, so the timed edits see its optimised code, as ours see a warm
//                     interpreter; answers "ok"
//   "time"            one timed edit; answers its seconds
// The Python side sends "time" between its own timed calls, so that both processes are measured
// edit by edit under the same machine load (only one of them runs at a time).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { createInterface } from "node:readline";

const [modules, file, jsonPath] = process.argv.slice(2);
const require = createRequire(path.join(modules, "noop.js"));
const { modify, applyEdits } = require("jsonc-parser");
const data = readFileSync(file);
const where = JSON.parse(jsonPath);
const options = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: "\n" } };

function editOnce() {
  const text = data.toString("utf8");
  const out = applyEdits(text, modify(text, where, "edited", options));
  return Buffer.from(out, "utf8");
}

const check = editOnce().toString("utf8");
if (!check.includes('"edited"') || check.length === data.length) {
  throw new Error("jsonc-parser did not make the edit");
}

function warm(seconds) {
  const until = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  for (let i = 0; i < 5 || process.hrtime.bigint() < until; i++) editOnce();
}

function timeOnce() {
  const start = process.hrtime.bigint();
  editOnce();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

for await (const line of createInterface({ input: process.stdin })) {
  const [command, argument] = line.trim().split(/\s+/);
  if (command === "warm") {
    warm(Number(argument));
    process.stdout.write("ok\n");
  } else if (command === "time") {
    process.stdout.write(`${timeOnce()}\n`);
  } else {
    throw new Error(`unknown command: ${line}`);
  }
}
