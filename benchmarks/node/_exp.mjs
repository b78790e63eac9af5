// One edit with VS Code's jsonc-parser, timed like benchmarks/editors.py times ours:
// UTF-8 bytes in memory -> text -> modify() + applyEdits() -> UTF-8 bytes.
// Usage: node jsonc_edit.mjs <node_modules dir> <file> <json path> <repeat> <warmup>
// Prints the per-run seconds as a JSON array.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [modules, file, jsonPath, repeat, warmup] = process.argv.slice(2);
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
for (let i = 0; i < Number(warmup); i++) editOnce();
const samples = [];
for (let i = 0; i < Number(repeat); i++) {
  if (globalThis.gc) globalThis.gc();
  const start = process.hrtime.bigint();
  editOnce();
  samples.push(Number(process.hrtime.bigint() - start) / 1e9);
}
process.stdout.write(JSON.stringify(samples) + "\n");
