import { createHash } from 'node:crypto';
import type { Logistics, Order, RefundPolicy } from './refund-types.js';

/** `fact://order/<id>@v<version>`: a citable reference to one version of an order. */
export function orderFactRef(order: Pick<Order, 'id' | 'version'>): string {
  return `fact://order/${order.id}@v${order.version}`;
}

/** `fact://logistics/<orderId>@v<version>`: a citable reference to one version of a shipment state. */
export function logisticsFactRef(logistics: Pick<Logistics, 'orderId' | 'version'>): string {
  return `fact://logistics/${logistics.orderId}@v${logistics.version}`;
}

/** `policy://refund/v<version>#<id>`, e.g. `policy://refund/v18#R001`. */
export function policyRef(policy: Pick<RefundPolicy, 'id' | 'version'>): string {
  return `policy://refund/v${policy.version}#${policy.id}`;
}

/** `sha256:<hex>` of the value's JSON with object keys sorted, so equal data has equal digests. */
export function contentDigest(value: unknown): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value)).digest('hex')}`;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
