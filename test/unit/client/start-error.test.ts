import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { startFailure } from '../../../src/client/start-error.js';
import { isHarnessError } from '../../../src/contract/errors.js';

describe('a failed start says why in its message', () => {
  it('a namespace without the search attributes: named, with the command that creates them', () => {
    const sdk = new Error('Failed to start Workflow', {
      cause: new Error(
        '3 INVALID_ARGUMENT: invalid search attribute: no mapping defined for search attribute AgentStatus',
      ),
    });
    const err = startFailure(sdk, 'agents');
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    expect(err.message).toContain('namespace agents has no search attribute AgentStatus');
    // One command a line, for every attribute (the server names only the first it lacks).
    const commands = err.message.split('\n').filter((l) => l.startsWith('temporal operator'));
    expect(commands).toEqual(
      ['AgentStatus', 'AgentWaitingReason', 'AgentProfile', 'AgentTenant', 'AgentUser'].map(
        (name) =>
          `temporal operator search-attribute create --namespace agents --name ${name} --type Keyword`,
      ),
    );
    expect((err as Error & { details?: { missing?: string[] } }).details?.missing).toEqual(['AgentStatus']);
    expect((err as Error & { cause?: unknown }).cause).toBe(sdk);
  });

  it('any other failure keeps its class, with its causes in the message', () => {
    const sdk = new Error('Failed to start Workflow', {
      cause: new Error('14 UNAVAILABLE: connection refused'),
    });
    const err = startFailure(sdk, 'default');
    expect(err).toBe(sdk);
    expect(err.message).toBe('Failed to start Workflow: 14 UNAVAILABLE: connection refused');
    const duplicate = new WorkflowExecutionAlreadyStartedError('already started', 'wf', 'agentRun');
    expect(startFailure(duplicate, 'default')).toBe(duplicate);
  });
});
