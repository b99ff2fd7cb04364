import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { DataConverter, PayloadCodec } from '@temporalio/common';

/** The failure converter module: the `.cts` source in a clone, the `.cjs` build once packed. */
function failureConverterModule(): string {
  const source = fileURLToPath(new URL('./encoded-failure-converter.cts', import.meta.url));
  return existsSync(source)
    ? source
    : fileURLToPath(new URL('./encoded-failure-converter.cjs', import.meta.url));
}

/** The module that exports a `failureConverter` with `encodeCommonAttributes: true`. */
export const encodedFailureConverterPath = failureConverterModule();

/**
 * The data converter of workers, clients and replays with `codec` (undefined without one: the SDK's
 * default). Besides the codec it moves failure messages and stack traces of activity failures into
 * encoded attributes, so the codec encrypts them too. Failures the workflow code itself raises keep
 * their message in clear (the workflow bundle keeps the default failure converter); they carry the
 * harness's codes and ids, not tool or model data (docs/security.md).
 */
export function harnessDataConverter(codec: PayloadCodec | undefined): DataConverter | undefined {
  if (!codec) return undefined;
  return { payloadCodecs: [codec], failureConverterPath: encodedFailureConverterPath };
}
