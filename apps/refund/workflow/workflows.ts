// The refund app's workflow bundle entry (the worker's workflowsPath).
import { defineAgentRun } from '../../../src/workflows/index.js';
import { refundDefinition } from './definition.js';

export const agentRun = defineAgentRun(refundDefinition);
