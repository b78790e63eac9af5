// The user's own OpenCode plugin: Elydora's install and uninstall must leave it byte for byte.
export const SessionNotes = async ({ directory }) => ({
  "tool.execute.after": async (input) => {
    if (input.tool === "write") console.error(`[notes] ${directory}: ${input.callID} wrote a file`);
  },
});
