// The showcase's workflow bundle entry (the worker's workflowsPath): every example app's profiles.
import { defineAgentRun } from '../../../src/workflows/index.js';
import { showcaseDefinition } from './definition.js';

export const agentRun = defineAgentRun(showcaseDefinition);
