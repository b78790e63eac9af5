// Pi loads the default export of every extension file and calls it with its extension API; a `tool_call`
// handler blocks a call by returning `{ block: true, reason }` (or by throwing), `tool_result` sees the
// result of every call that ran, failed ones included.
const CALL = "tool_call";
const RESULT = "tool_result";

function sessionOf(ctx) {
  try {
    return ctx?.sessionManager?.getSessionId?.();
  } catch {
    return undefined;
  }
}

export default function ElydoraExtension(pi) {
  if (globalThis[CLAIM]) return;
  globalThis[CLAIM] = HOST;
  pi.on(CALL, async (toolCall, ctx) => {
    let answer;
    try {
      answer = await runGuard(event(CALL, ctx?.cwd, { session_id: sessionOf(ctx) }, toolCall));
    } catch (error) {
      answer = { failure: String(error?.message ?? error) };
    }
    if (answer.deny !== undefined) return { block: true, reason: answer.deny };
    if (answer.failure !== undefined) failed(answer.failure);
    return undefined;
  });
  pi.on(RESULT, async (result, ctx) => {
    try {
      sendAudit(event(RESULT, ctx?.cwd, { session_id: sessionOf(ctx) }, result));
    } catch {
      // a payload we cannot serialise is not the agent's problem
    }
    return undefined;
  });
}
