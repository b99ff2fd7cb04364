import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureDemoApprover, ensureDemoCustomer } from '../../../apps/refund/demo-principals.js';
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

  it("the main job's customer joins the registry as a customer; a lost registry trusts the kept keys again", () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-principals-'));
    const approver = ensureDemoApprover(dir);
    const customer = ensureDemoCustomer(dir);
    expect(customer).toMatchObject({ keyPath: join(dir, 'keys', 'demo-customer.json'), created: true });
    expect(statSync(customer.keyPath).mode & 0o777).toBe(0o600);
    const entries = () =>
      (
        JSON.parse(readFileSync(customer.registryPath, 'utf8')) as {
          principals: { id: string; kind: string; roles: string[]; keys: { id: string }[] }[];
        }
      ).principals;
    expect(entries().find((p) => p.id === 'C1001')).toMatchObject({ kind: 'customer', roles: [] });
    expect(registryIds(customer.registryPath).sort()).toEqual(['C1001', 'demo-approver@main-job']);
    expect(ensureDemoCustomer(dir).created).toBe(false);
    const keyFile = readFileSync(customer.keyPath, 'utf8');
    rmSync(approver.registryPath);
    expect(ensureDemoCustomer(dir).created).toBe(true);
    expect(ensureDemoApprover(dir).created).toBe(true);
    expect(readFileSync(customer.keyPath, 'utf8')).toBe(keyFile);
    expect(
      entries()
        .map((p) => [p.id, p.keys.length])
        .sort(),
    ).toEqual([
      ['C1001', 1],
      ['demo-approver@main-job', 1],
    ]);
  });
});
