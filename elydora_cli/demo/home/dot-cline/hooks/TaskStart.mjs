#!/usr/bin/env node
// My own Cline hook: remind the agent of the house rules when a task starts.
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify({ cancel: false, contextModification: "House rules: small commits, tests first." }));
});
