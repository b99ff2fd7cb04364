import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/devserver/config.js';
import { EXIT } from '../../src/cli/errors.js';
import { buildProgram } from '../../src/cli/program.js';

/** docs/cli.md keeps up with the command tree: every verb, every option and every exit code. */
describe('docs/cli.md', () => {
  const doc = readFileSync(join(projectRoot, 'docs', 'cli.md'), 'utf8');
  const program = buildProgram({ exitCode: 0 });

  it('has a section for every verb that names each of its options', () => {
    const verbs = program.commands.map((c) => c.name());
    expect(verbs).toEqual(
      expect.arrayContaining([
        'worker',
        'dev',
        'start',
        'list',
        'show',
        'events',
        'approve',
        'reject',
        'reconcile',
        'cancel',
        'replay',
        'history',
      ]),
    );
    for (const command of program.commands) {
      const heading = doc.split('\n').find((l) => l.startsWith(`### \`harness ${command.name()}`));
      expect(heading, `section for ${command.name()}`).toBeDefined();
      const start = doc.indexOf(heading!);
      const next = doc.indexOf('\n### ', start + 1);
      const section = doc.slice(start, next === -1 ? undefined : next);
      for (const option of command.options) {
        expect(section, `${command.name()} ${option.long}`).toContain(option.long!);
      }
    }
    expect(doc).toContain('--json');
  });

  it('lists every exit code', () => {
    for (const code of Object.values(EXIT)) expect(doc).toMatch(new RegExp(`^\\| ${code} +\\|`, 'm'));
  });
});
