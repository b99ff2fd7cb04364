// The retail app's workflow bundle entry (the worker's workflowsPath).
import { defineAgentRun } from '../../../src/workflows/index.js';
import { retailDefinition } from './definition.js';

export const agentRun = defineAgentRun(retailDefinition);
