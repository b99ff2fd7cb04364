import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CodecKeyRing,
  EncryptionCodec,
  startCodecServer,
  type CodecServer,
} from '../../../src/codec/index.js';
import { payloadFromJson, payloadToJson } from '../../../src/codec/payload-json.js';
import { keyRing } from './keys.js';

const UI = 'http://127.0.0.1:8233';
const codec = new EncryptionCodec(CodecKeyRing.from(keyRing('k1')));
const stranger = new EncryptionCodec(CodecKeyRing.from(keyRing('k9')));

async function post(
  server: CodecServer,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const asJson = (payloads: Payload[]) => ({ payloads: payloads.map(payloadToJson) });
const values = async (r: Response): Promise<unknown[]> =>
  ((await r.json()) as { payloads: Parameters<typeof payloadFromJson>[0][] }).payloads.map((p) =>
    defaultPayloadConverter.fromPayload(payloadFromJson(p)),
  );

describe('codec server (the Temporal codec protocol over node:http)', () => {
  let server: CodecServer;
  let guarded: CodecServer;
  const log: string[] = [];
  beforeAll(async () => {
    server = await startCodecServer({ codec, port: 0, origins: [UI], log: (l) => log.push(l) });
    guarded = await startCodecServer({ codec, port: 0, origins: [UI], token: 's3cret' });
  });
  afterAll(async () => {
    await server?.close();
    await guarded?.close();
  });

  it('binds 127.0.0.1 by default', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('decodes what the workers encrypted and encodes what the UI sends, in proto3 JSON', async () => {
    const encrypted = await codec.encode([
      defaultPayloadConverter.toPayload({ orderId: 'ORD-1001' }),
      defaultPayloadConverter.toPayload('final answer'),
    ]);
    const decoded = await post(server, '/decode', asJson(encrypted), { origin: UI });
    expect(decoded.status).toBe(200);
    expect(decoded.headers.get('access-control-allow-origin')).toBe(UI);
    expect(await values(decoded)).toEqual([{ orderId: 'ORD-1001' }, 'final answer']);

    const encoded = await post(server, '/encode', asJson([defaultPayloadConverter.toPayload({ a: 1 })]));
    const body = (await encoded.json()) as { payloads: Parameters<typeof payloadFromJson>[0][] };
    const back = await codec.decode(body.payloads.map(payloadFromJson));
    expect(JSON.stringify(body)).not.toContain(Buffer.from('{"a":1}').toString('base64'));
    expect(defaultPayloadConverter.fromPayload(back[0]!)).toEqual({ a: 1 });
    expect(log.some((l) => /decode 2 payloads namespace=default -> 200/.test(l))).toBe(true);
  });

  it('answers the preflight of the UI origin and refuses other origins before decoding', async () => {
    const pre = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: UI,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe(UI);
    expect(pre.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const encrypted = await codec.encode([defaultPayloadConverter.toPayload('secret')]);
    const evil = await post(server, '/decode', asJson(encrypted), { origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
    expect(await evil.text()).not.toContain(Buffer.from('"secret"').toString('base64'));
  });

  it('a payload it cannot decrypt comes back unchanged, the others decoded; the log names the key id', async () => {
    const ours = await codec.encode([defaultPayloadConverter.toPayload('ours')]);
    const theirs = await stranger.encode([defaultPayloadConverter.toPayload('theirs')]);
    const plain = defaultPayloadConverter.toPayload('plain');
    const r = await post(server, '/decode', asJson([...ours, ...theirs, plain]));
    const body = (await r.json()) as { payloads: Parameters<typeof payloadFromJson>[0][] };
    expect(defaultPayloadConverter.fromPayload(payloadFromJson(body.payloads[0]!))).toBe('ours');
    expect(body.payloads[1]).toEqual(payloadToJson(theirs[0]!));
    expect(defaultPayloadConverter.fromPayload(payloadFromJson(body.payloads[2]!))).toBe('plain');
    expect(log.at(-1)).toMatch(/1 not decoded: codec\.unknown_key k9/);
  });

  it('malformed requests: 400 for a body that is not JSON or not payloads, 404 elsewhere, 405 for GET', async () => {
    expect((await post(server, '/decode', '{nope')).status).toBe(400);
    expect((await post(server, '/decode', { payloads: 'x' })).status).toBe(400);
    expect((await post(server, '/other', { payloads: [] })).status).toBe(404);
    expect((await fetch(`${server.url}/decode`)).status).toBe(405);
    expect(await (await post(server, '/decode/', { payloads: [] })).json()).toEqual({ payloads: [] });
  });

  it('with a token, requests need Authorization: Bearer <token>', async () => {
    const body = asJson(await codec.encode([defaultPayloadConverter.toPayload('x')]));
    expect((await post(guarded, '/decode', body)).status).toBe(401);
    expect((await post(guarded, '/decode', body, { authorization: 'Bearer wrong' })).status).toBe(401);
    const ok = await post(guarded, '/decode', body, { authorization: 'Bearer s3cret' });
    expect(await values(ok)).toEqual(['x']);
  });
});
