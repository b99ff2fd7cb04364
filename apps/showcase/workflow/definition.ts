import { combineDefinitions } from '../../../src/workflows/index.js';
import { codingDefinition } from '../../coding/workflow/definition.js';
import { mcpFilesDefinition } from '../../mcp-files/workflow/definition.js';
import { refundDefinition } from '../../refund/workflow/definition.js';

/** Every example app in one worker: refund, coding (git) and the MCP filesystem example. */
export const showcaseDefinition = combineDefinitions(refundDefinition, codingDefinition, mcpFilesDefinition);
