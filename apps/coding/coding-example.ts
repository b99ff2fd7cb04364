import type { ModelRouter } from '../../src/worker/activities/model-router.js';
import { ScriptedProvider } from '../../src/worker/model/scripted-provider.js';
import { parseModelScript } from '../../src/worker/model/scripted-script.js';
import type { ToolRegistry } from '../../src/worker/tools/tool-registry.js';
import type { CodingTool, CodingToolsConfig } from './coding-config.js';
import {
  CODING_PIPELINE_ROUTE,
  CODING_PIPELINE_SCRIPT,
  CODING_PUSH_ROUTE,
  CODING_PUSH_SCRIPT,
} from './coding-script.js';
import { registerCodingTools } from './coding-tools.js';

/**
 * Enable the coding example in a worker composition: the five git/pipeline tools bound to
 * `config`, and the scripted routes `scripted/coding` (coding.push@v1) and
 * `scripted/coding-pipeline` (coding.pipeline@v1).
 * @throws `registry.conflict` / `model.*` errors when they are already registered.
 */
export function enableCodingExample(
  registry: ToolRegistry,
  models: ModelRouter,
  config: CodingToolsConfig,
): CodingTool[] {
  const tools = registerCodingTools(registry, config);
  models.register(
    CODING_PUSH_ROUTE,
    new ScriptedProvider(parseModelScript(CODING_PUSH_SCRIPT, CODING_PUSH_ROUTE)),
    'scripted',
  );
  models.register(
    CODING_PIPELINE_ROUTE,
    new ScriptedProvider(parseModelScript(CODING_PIPELINE_SCRIPT, CODING_PIPELINE_ROUTE)),
    'scripted',
  );
  return tools;
}
