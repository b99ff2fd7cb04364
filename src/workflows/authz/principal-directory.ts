import type { Principal, PrincipalRegistry } from '../../contract/principals.js';
import { base64UrlDecode } from './base64url.js';

/** A registered key with its owner, decoded for verification. */
export interface DirectoryKey {
  readonly keyId: string;
  readonly publicKey: Uint8Array;
  readonly notAfterMs?: number;
  readonly principal: Principal;
}

/**
 * Lookup over a principal registry the run loaded: keys by key id, principals by id. Built from the
 * registry snapshot recorded in history (deterministic).
 */
export class PrincipalDirectory {
  private readonly keys = new Map<string, DirectoryKey>();
  private readonly principals = new Map<string, Principal>();

  constructor(
    readonly digest: string,
    registry: PrincipalRegistry,
  ) {
    for (const p of registry.principals) {
      this.principals.set(p.id, p);
      for (const k of p.keys) {
        const publicKey = base64UrlDecode(k.publicKey);
        if (publicKey?.length !== 32) continue;
        this.keys.set(k.id, {
          keyId: k.id,
          publicKey,
          ...(k.notAfter !== undefined ? { notAfterMs: Date.parse(k.notAfter) } : {}),
          principal: p,
        });
      }
    }
  }

  key(keyId: string): DirectoryKey | undefined {
    return this.keys.get(keyId);
  }

  principal(id: string): Principal | undefined {
    return this.principals.get(id);
  }
}
