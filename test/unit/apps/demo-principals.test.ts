import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDemoApprover } from '../../../apps/refund/demo-principals.js';
import { ensureDevServiceFiles } from '../../../src/service/dev-identity.js';

const registryIds = (path: string) =>
  (JSON.parse(readFileSync(path, 'utf8')) as { principals: { id: string }[] }).principals.map((p) => p.id);

describe('the local principal registry (.data/principals.json)', () => {
  it('the main job and the dev run service each add their principal and keep the other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-principals-'));
    const service = await ensureDevServiceFiles(dir);
    expect(service.created).toContain(join(dir, 'principals.json'));
    const demo = ensureDemoApprover(dir);
    expect(demo.created).toBe(true);
    expect(registryIds(demo.registryPath).sort()).toEqual(['demo-approver@main-job', 'run-service']);
    // Again: nothing changes, nothing is replaced.
    expect(ensureDemoApprover(dir).created).toBe(false);
    expect((await ensureDevServiceFiles(dir)).created).toEqual([]);
    expect(registryIds(demo.registryPath).sort()).toEqual(['demo-approver@main-job', 'run-service']);
    expect(existsSync(join(dir, 'service', 'jwt-issuer.json'))).toBe(true);
  });

  it('the dev run service joins a registry the main job made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-principals-'));
    ensureDemoApprover(dir);
    await ensureDevServiceFiles(dir);
    expect(registryIds(join(dir, 'principals.json')).sort()).toEqual([
      'demo-approver@main-job',
      'run-service',
    ]);
  });
});
