// The user's own Kilo plugin: it refuses shell commands at night. Elydora never touches it.
export const QuietHours = async () => ({
  "tool.execute.before": async (input) => {
    const hour = new Date().getHours();
    if (input.tool === "bash" && (hour < 6 || hour > 22)) throw new Error("quiet hours: no shell commands");
  },
});
