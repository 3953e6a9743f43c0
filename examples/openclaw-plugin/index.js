import { emitDiagnosticEvent } from "openclaw/plugin-sdk/diagnostic-runtime";
import { LoopGuard } from "tool-loop-guard";
import { fromOpenClawConfig, toolLoopGuardPlugin } from "tool-loop-guard/openclaw";

// One guard per agent; each detection is also OpenClaw's `tool.loop` diagnostic event.
export default toolLoopGuardPlugin((agentId, gatewayConfig) => new LoopGuard(fromOpenClawConfig(gatewayConfig, agentId)), { emitDiagnosticEvent });
