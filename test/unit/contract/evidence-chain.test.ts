import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/contract/canonical-json.js';
import {
  CHAIN_EVENT_TAG,
  chainedEventText,
  eventHash,
  genesisHash,
  genesisOfFirstEvent,
} from '../../../src/contract/evidence-chain.js';
import { sha256Hex } from '../../../src/contract/sha256.js';

const nodeSha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('canonical JSON is RFC 8785 (JCS) for the values the harness stores', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3 example)', () => {
    const value = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalJson(value)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('writes numbers and strings as ECMAScript does (RFC 8785 §3.2.2 examples)', () => {
    expect(canonicalJson({ numbers: [333333333.3333333, 1e30, 4.5, 0.002, 1e-27, -0, 1e21] })).toBe(
      '{"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,0,1e+21]}',
    );
    expect(canonicalJson({ string: '\u20ac$\u000f\nA\'B"\\\\"/', literals: [null, true, false] })).toBe(
      '{"literals":[null,true,false],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });
});

describe('evidence chain hashes', () => {
  const event = { runId: 'r-1', seq: 0, eventId: 'r-1:0', type: 'run.started', data: { tenantId: 'acme' } };
  const body = canonicalJson(event);
  const prev = `sha256:${'a'.repeat(64)}`;

  it('hashes the canonical JSON of { event, prev } behind its domain tag', () => {
    expect(chainedEventText(body, prev)).toBe(canonicalJson({ event, prev }));
    expect(eventHash(nodeSha, body, prev)).toBe(
      `sha256:${nodeSha(CHAIN_EVENT_TAG + canonicalJson({ event, prev }))}`,
    );
    expect(eventHash(sha256Hex, body, prev)).toBe(eventHash(nodeSha, body, prev));
    expect(eventHash(nodeSha, body, `sha256:${'b'.repeat(64)}`)).not.toBe(eventHash(nodeSha, body, prev));
  });

  it('binds tenant, workflow id and first event in the genesis', () => {
    const g = genesisOfFirstEvent(event);
    expect(g).toEqual({ tenant: 'acme', workflowId: 'r-1', firstEventId: 'r-1:0', previousHead: null });
    expect(genesisOfFirstEvent({ ...event, data: {} }).tenant).toBeNull();
    const hashes = new Set([
      genesisHash(nodeSha, g),
      genesisHash(nodeSha, { ...g, tenant: 'other' }),
      genesisHash(nodeSha, { ...g, workflowId: 'r-2' }),
      genesisHash(nodeSha, { ...g, previousHead: prev }),
    ]);
    expect(hashes.size).toBe(4);
  });
});
