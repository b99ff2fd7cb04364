import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/index.js';
import {
  encodeErrorToFailure,
  decodeFailure,
} from '@temporalio/common/lib/internal-non-workflow/codec-helpers.js';
import { describe, expect, it } from 'vitest';
import { CodecKeyRing, EncryptionCodec, harnessDataConverter } from '../../../src/codec/index.js';
import { keyRing } from './keys.js';

describe('the data converter of workers, clients and replays', () => {
  it('is the SDK default without a codec', () => {
    expect(harnessDataConverter(undefined)).toBeUndefined();
  });

  it('with a codec, failure messages and stack traces travel encrypted, and read back', async () => {
    const codec = new EncryptionCodec(CodecKeyRing.from(keyRing('k1')));
    // Loaded the way Worker.create and new Client load it (the failure converter module by path).
    const loaded = loadDataConverter(harnessDataConverter(codec));
    const err = ApplicationFailure.create({ message: 'order ORD-1001 of C1001: card declined', type: 'x' });
    const failure = await encodeErrorToFailure(loaded, err);
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    expect(JSON.stringify(failure)).not.toContain('ORD-1001');
    expect(Buffer.from(failure.encodedAttributes!.data!).toString()).not.toContain('ORD-1001');
    const decoded = await decodeFailure(loaded.payloadCodecs, failure);
    const back = loaded.failureConverter.failureToError(decoded, defaultPayloadConverter);
    expect(back.message).toBe('order ORD-1001 of C1001: card declined');
  });
});
