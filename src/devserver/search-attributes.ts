import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';

const { temporal } = proto;

const TYPES: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {
  Text: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/**
 * Register the harness's custom search attributes on a server where they are missing (a reused dev
 * server, or a self-hosted cluster). Failure to register (e.g. no operator permission on a managed
 * service) is logged, not thrown: runs still work, only filtering by those attributes does not.
 */
export async function ensureSearchAttributes(
  address: string | Connection,
  namespace: string,
  wanted: Record<string, string>,
  log: (line: string) => void,
): Promise<void> {
  const connection = typeof address === 'string' ? await Connection.connect({ address }) : address;
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const have = new Set([
      ...Object.keys(existing.customAttributes ?? {}),
      ...Object.keys(existing.systemAttributes ?? {}),
    ]);
    const missing: Record<string, proto.temporal.api.enums.v1.IndexedValueType> = {};
    for (const [name, type] of Object.entries(wanted)) {
      const t = TYPES[type];
      if (!have.has(name) && t !== undefined) missing[name] = t;
    }
    if (Object.keys(missing).length === 0) return;
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes: missing });
    log(`Registered search attributes: ${Object.keys(missing).join(', ')}`);
  } catch (err) {
    log(
      `Warning: could not register search attributes (${(err as Error).message}); filtering by them will not work.`,
    );
  } finally {
    if (typeof address === 'string') await connection.close();
  }
}
