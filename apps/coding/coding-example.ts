import type { ModelRouter, ToolRegistry } from '../../src/index.js';
import { parseModelScript, ScriptedProvider } from '../../src/index.js';
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
