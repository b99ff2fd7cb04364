import type { Command } from 'commander';
import type { ExportOptions, VerifyOptions } from './commands/proof.js';
import type { EraseOptions } from './commands/erase.js';
import type { CommandKit } from './command-kit.js';

/**
 * Registers the commands that prove what a run did (docs/evidence-chain.md): `verify` (a run, or a
 * bundle offline), `export` (a run's proof bundle) and `erase` (crypto-shredding of erasable values). Command modules load on use; an action's errors
 * propagate to the caller (src/cli/main.ts maps them to exit codes).
 */
export function registerProofCommands(program: Command, { out, run }: CommandKit): void {
  program
    .command('verify [runId]')
    .description("check a run's evidence: chain, decisions, writes, history agreement, artifacts, policy")
    .option('--bundle <file>', 'verify an exported bundle instead (no store or server needed)')
    .option('--principals <file>', 'the approver registry you trust; decisions under another one fail')
    .option('--attestation <file>', 'the attestation keys that check the signed chain heads')
    .action((runId: string | undefined, o: VerifyOptions, cmd: Command) =>
      run(async () => (await import('./commands/proof.js')).verifyCommand(runId, o, out(cmd))),
    );

  program
    .command('export <runId>')
    .description(
      "write a run's self-contained proof bundle for `harness verify --bundle`, or its events as OpenTelemetry GenAI spans",
    )
    .option('--bundle <file>', 'the bundle file to write (erasable values withheld by policy)')
    .option('--with-values', 'put the stored erasable values (and their salts) in the bundle')
    .option('--otel <file>', "write the run's events as OTLP/JSON spans (GenAI semantic conventions)")
    .option(
      '--attestation <file>',
      'the attestation keys to put in the bundle (default HARNESS_ATTESTATION_KEYS)',
    )
    .option(
      '--decode',
      "write the history's payloads decoded by the payload codec (HARNESS_CODEC_KEYS), for an auditor without its keys",
    )
    .action((runId: string, o: ExportOptions, cmd: Command) =>
      run(async () => {
        const { bundle, otel } = o;
        if (bundle === undefined && otel === undefined)
          throw (await import('./errors.js')).usageError(
            'name what to write: --bundle <file> or --otel <file>',
          );
        let code = 0;
        if (bundle !== undefined)
          code = await (await import('./commands/proof.js')).exportCommand(runId, { ...o, bundle }, out(cmd));
        if (otel !== undefined && code === 0)
          code = await (
            await import('./commands/otel-export.js')
          ).otelExportCommand(runId, { otel }, out(cmd));
        return code;
      }),
    );

  program
    .command('erase [runId]')
    .description(
      "erase a finished run's erasable values (crypto-shredding): the chain still verifies, reads show them withheld",
    )
    .requiredOption('--by <who>', 'who asks for the erasure (recorded with it)')
    .option('--path <pointer>', 'only values at this path inside the event data, e.g. /userId')
    .option('--subject <value>', 'only this value; without a run id, in every run that stored it')
    .option('--reason <text>', 'why (recorded with it)')
    .action((runId: string | undefined, o: EraseOptions, cmd: Command) =>
      run(async () => (await import('./commands/erase.js')).eraseCommand(runId, o, out(cmd))),
    );
}
