import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  defaultConfigPath,
  loadDevServerConfig,
  parseDevServerConfig,
} from '../../../src/devserver/config.js';

const good = readFileSync(defaultConfigPath, 'utf8');

describe('temporal-dev.yml', () => {
  it('the committed file is valid and pins the CLI, ports and search attributes', () => {
    const c = loadDevServerConfig();
    expect(c.cli.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(c.server.port).toBe(7233);
    expect(c.server.uiPort).toBe(8233);
    expect(c.server.dbFile.startsWith('/')).toBe(true);
    expect(c.searchAttributes).toMatchObject({
      AgentStatus: 'Keyword',
      AgentWaitingReason: 'Keyword',
      AgentProfile: 'Keyword',
    });
    expect(c.dynamicConfig['frontend.enableServerVersionCheck']).toBe(false);
  });

  it.each([
    ['port: 7233', 'port: "seven"', /server\.port/],
    ['version: 1.5.1', 'version: latest', /cli\.version/],
    ['logLevel: warn', 'logLevel: loud', /server\.logLevel/],
    ['  AgentStatus: Keyword', '  AgentStatus: Strange', /searchAttributes\.AgentStatus/],
    ['  namespace: default', '  namespace: default\n  colour: blue', /colour/],
  ])('a bad field fails with a message that names it (%s -> %s)', (from, to, message) => {
    expect(good).toContain(from);
    expect(() => parseDevServerConfig(good.replace(from, to))).toThrow(message);
  });

  it('the UI codec endpoint is optional and off by default; when set it must be an http(s) URL', () => {
    expect(parseDevServerConfig(good).server.uiCodecEndpoint).toBeUndefined();
    const withCodec = (url: string): string =>
      good.replace('  startTimeoutSeconds: 60', `  startTimeoutSeconds: 60\n  uiCodecEndpoint: ${url}`);
    expect(parseDevServerConfig(withCodec('http://127.0.0.1:8888')).server.uiCodecEndpoint).toBe(
      'http://127.0.0.1:8888',
    );
    for (const bad of ['ftp://x', 'not a url', 'http://user:pw@host:8888'])
      expect(() => parseDevServerConfig(withCodec(JSON.stringify(bad)))).toThrow(/server\.uiCodecEndpoint/);
  });

  it('invalid YAML is a clear error', () => {
    expect(() => parseDevServerConfig('cli: [unclosed')).toThrow(/not valid YAML/);
  });
});
