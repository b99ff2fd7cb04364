import type { Command } from 'commander';
import type { CommandKit } from './command-kit.js';

/**
 * Registers `harness log` (docs/evidence-chain.md, "The seal log"): `append` run seals to the
 * append-only log file, `checkpoint` it (signed tree head to publish), `prove` a run's inclusion and
 * `verify` such a proof. Command modules load on use; errors propagate (src/cli/main.ts).
 */
export function registerSealLogCommands(program: Command, { out, run }: CommandKit): void {
  const log = program
    .command('log')
    .description('the seal log: a Merkle tree of run seals whose signed checkpoints you publish');
  const load = () => import('./commands/seal-log.js');
  log
    .command('append [runIds...]')
    .description('append the seals of runs not yet in the log (named, or created since --created-from)')
    .requiredOption('--log <file>', 'the seal log file (one JSON entry per line, append-only)')
    .option('--created-from <iso>', 'every run created at or after this time (up to 5,000 per call)')
    .action((runIds: string[], o: { log: string; createdFrom?: string }, cmd: Command) =>
      run(async () => (await load()).logAppendCommand(runIds, o, out(cmd))),
    );
  log
    .command('checkpoint')
    .description("sign the log's size and tree head with HARNESS_ATTESTATION_KEY, to publish")
    .requiredOption('--log <file>', 'the seal log file')
    .option('--name <log>', "the log's name in the checkpoint", 'harness-seals')
    .option('--out <file>', 'write the checkpoint there too')
    .action((o: { log: string; name?: string; out?: string }, cmd: Command) =>
      run(async () => (await load()).logCheckpointCommand(o, out(cmd))),
    );
  log
    .command('prove <runId>')
    .description("write a run's inclusion proof in a checkpoint's tree (and consistency from --since)")
    .requiredOption('--log <file>', 'the seal log file')
    .requiredOption('--checkpoint <file>', 'the checkpoint to prove against')
    .option('--since <file>', 'an earlier, published checkpoint: add the proof that the log only grew')
    .requiredOption('--out <file>', 'the proof file to write')
    .action(
      (runId: string, o: { log: string; checkpoint: string; since?: string; out: string }, cmd: Command) =>
        run(async () => (await load()).logProveCommand(runId, o, out(cmd))),
    );
  log
    .command('verify <proof>')
    .description("check a run's seal log proof against the attestation keys (and a bundle's seal)")
    .option('--bundle <file>', "the run's proof bundle: the logged seal must be its seal")
    .option('--attestation <file>', 'the attestation keys (default HARNESS_ATTESTATION_KEYS)')
    .action((proof: string, o: { bundle?: string; attestation?: string }, cmd: Command) =>
      run(async () => (await load()).logVerifyCommand(proof, o, out(cmd))),
    );
}
