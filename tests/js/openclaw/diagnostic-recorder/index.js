// A test plugin for the real gateway (diagnostic.test.mjs): subscribes to OpenClaw's diagnostic
// events through its plugin SDK and appends each `tool.loop` event, one JSON line each, to the
// file `plugins.entries.diagnostic-recorder.config.file` names: the event's own keys (those whose
// value is undefined too), the event, and whether OpenClaw's dispatcher marked it internal (its
// own detector) or not (a plugin's).
import fs from "node:fs";
import { onInternalDiagnosticEvent } from "openclaw/plugin-sdk/diagnostic-runtime";

export default {
  id: "diagnostic-recorder",
  name: "Diagnostic recorder (test)",
  description: "Appends every tool.loop diagnostic event to a file.",
  register(api) {
    const file = api.pluginConfig?.file;
    if (typeof file !== "string") return;
    onInternalDiagnosticEvent(
      (event, metadata) => {
        const line = { keys: Object.keys(event).sort(), event, internal: metadata.internal === true };
        fs.appendFileSync(file, `${JSON.stringify(line)}\n`);
      },
      { include: ["tool.loop"] },
    );
  },
};
