import { cpus, totalmem, freemem } from 'node:os';
import { availableParallelism } from 'node:os';

/** What the numbers were measured on. */
export interface MachineInfo {
  readonly nproc: number;
  readonly cpuModel: string;
  readonly memoryTotalMiB: number;
  readonly memoryFreeMiBAtStart: number;
  readonly node: string;
  readonly platform: string;
  readonly temporalSdk: string;
}

export async function machineInfo(): Promise<MachineInfo> {
  const sdk = (await import('@temporalio/worker/package.json', { with: { type: 'json' } })) as {
    default: { version: string };
  };
  return {
    nproc: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryTotalMiB: Math.round(totalmem() / 2 ** 20),
    memoryFreeMiBAtStart: Math.round(freemem() / 2 ** 20),
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    temporalSdk: sdk.default.version,
  };
}
