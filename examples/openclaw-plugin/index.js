import { LoopGuard } from "tool-loop-guard";
import { fromOpenClawConfig, toolLoopGuardPlugin } from "tool-loop-guard/openclaw";

export default toolLoopGuardPlugin((agentId, gatewayConfig) => new LoopGuard(fromOpenClawConfig(gatewayConfig, agentId)));
