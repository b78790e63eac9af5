// The user's own Pi extension: Elydora's install and uninstall must leave it byte for byte.
export default function (pi: any) {
  pi.on("tool_result", async (event: any) => {
    if (event.toolName === "edit") console.error("[reminder] run the tests before pushing");
  });
}
