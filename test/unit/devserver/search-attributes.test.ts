import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { isHarnessError } from '../../../src/contract/errors.js';
import {
  ensureSearchAttributes,
  HARNESS_SEARCH_ATTRIBUTES,
  type OperatorConnection,
} from '../../../src/devserver/search-attributes.js';

const T = proto.temporal.api.enums.v1.IndexedValueType;
type Types = Record<string, proto.temporal.api.enums.v1.IndexedValueType>;
const NAMES = HARNESS_SEARCH_ATTRIBUTES.map((a) => a.name);

/**
 * An operator service that lists `have`; `add` adds to what it lists after `visibleAfter` more lists,
 * or throws `addError`.
 */
function operator(have: Types, o: { addError?: Error; visibleAfter?: number } = {}) {
  const adds: Types[] = [];
  let pending: Types = {};
  let lists = 0;
  let showAt = Infinity;
  const connection: OperatorConnection = {
    operatorService: {
      listSearchAttributes: () => {
        lists += 1;
        if (lists >= showAt) Object.assign(have, pending);
        return Promise.resolve({
          customAttributes: { ...have },
          systemAttributes: { WorkflowId: T.INDEXED_VALUE_TYPE_KEYWORD },
        });
      },
      addSearchAttributes: (req) => {
        if (o.addError) return Promise.reject(o.addError);
        adds.push(req.searchAttributes);
        pending = req.searchAttributes;
        showAt = lists + 1 + (o.visibleAfter ?? 0);
        return Promise.resolve({});
      },
    },
  };
  return { connection, adds };
}

describe('the harness search attributes on a namespace', () => {
  it('registers the missing ones, waits until they are listed, and says which', async () => {
    const op = operator({ AgentStatus: T.INDEXED_VALUE_TYPE_KEYWORD }, { visibleAfter: 2 });
    const lines: string[] = [];
    const r = await ensureSearchAttributes(op.connection, 'agents', { log: (l) => lines.push(l) });
    expect(r.registered).toEqual(NAMES.slice(1));
    expect(Object.keys(op.adds[0] ?? {})).toEqual(NAMES.slice(1));
    expect(Object.values(op.adds[0] ?? {})).toEqual(NAMES.slice(1).map(() => T.INDEXED_VALUE_TYPE_KEYWORD));
    expect(lines.join('\n')).toContain('AgentUser');
    // Present: nothing to do.
    expect((await ensureSearchAttributes(op.connection, 'agents')).registered).toEqual([]);
  });

  it('with registration off, fails naming the missing ones with one create command each', async () => {
    const op = operator({ AgentStatus: T.INDEXED_VALUE_TYPE_KEYWORD });
    const err = await ensureSearchAttributes(op.connection, 'agents', { register: false }).catch(
      (e: unknown) => e,
    );
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    const message = (err as Error).message;
    for (const name of NAMES.slice(1))
      expect(message).toContain(
        `temporal operator search-attribute create --namespace agents --name ${name} --type Keyword`,
      );
    expect(message).not.toContain('--name AgentStatus');
    expect(op.adds).toEqual([]);
  });

  it('when registering is refused (permission denied), fails naming them and keeps the cause', async () => {
    const denied = Object.assign(new Error('7 PERMISSION_DENIED: Request unauthorized.'), { code: 7 });
    const op = operator({}, { addError: denied });
    const err = await ensureSearchAttributes(op.connection, 'agents').catch((e: unknown) => e);
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    expect((err as Error).message).toContain('could not register them (permission denied');
    expect((err as Error).message).toContain('--name AgentWaitingReason --type Keyword');
    expect((err as { cause?: unknown }).cause).toBe(denied);
  });

  it('fails on an attribute of another type, naming both types', async () => {
    const op = operator({ AgentStatus: T.INDEXED_VALUE_TYPE_TEXT });
    const err = await ensureSearchAttributes(op.connection, 'agents').catch((e: unknown) => e);
    expect(isHarnessError(err, 'temporal.search_attributes_conflict')).toBe(true);
    expect((err as Error).message).toContain('AgentStatus is Text, the harness needs Keyword');
    expect(op.adds).toEqual([]);
  });

  it('fails clearly when registered attributes are not listed in time', async () => {
    const op = operator({}, { visibleAfter: 1_000 });
    const err = await ensureSearchAttributes(op.connection, 'agents', { visibleWithinMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    expect((err as Error).message).toContain('registered but are not listed after 0 s');
  });

  /** A workflow service whose count query is refused (INVALID_ARGUMENT, as a real server's frontend before its namespace cache refreshes) `refusals` times. */
  function counting(refusals: number) {
    const queries: string[] = [];
    return {
      queries,
      workflowService: {
        countWorkflowExecutions: (req: { namespace: string; query: string }) => {
          queries.push(req.query);
          if (queries.length <= refusals)
            return Promise.reject(
              Object.assign(
                new Error('3 INVALID_ARGUMENT: no mapping defined for search attribute AgentStatus'),
                {
                  code: 3,
                },
              ),
            );
          return Promise.resolve({ count: 0 });
        },
      },
    };
  }

  it('waits until the namespace accepts them in a query, registered now or before', async () => {
    const op = operator({});
    const count = counting(2);
    const connection = { ...op.connection, workflowService: count.workflowService };
    expect((await ensureSearchAttributes(connection, 'agents')).registered).toEqual(NAMES);
    expect(count.queries).toHaveLength(3);
    expect(count.queries[0]).toBe(NAMES.map((n) => `${n} IS NOT NULL`).join(' AND '));
    // Present already (created with the CLI a moment ago): still waits until they are accepted.
    const later = counting(1);
    await ensureSearchAttributes({ ...op.connection, workflowService: later.workflowService }, 'agents', {
      register: false,
    });
    expect(later.queries).toHaveLength(2);
  });

  it('fails clearly when listed attributes are never accepted', async () => {
    const op = operator({});
    const connection = { ...op.connection, workflowService: counting(1_000).workflowService };
    const err = await ensureSearchAttributes(connection, 'agents', { visibleWithinMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(isHarnessError(err, 'temporal.search_attributes_missing')).toBe(true);
    expect((err as Error).message).toContain('listed but the namespace does not accept them yet');
  });
});
