import { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { HarnessError } from '../contract/errors.js';
import { RUN_SEARCH_ATTRIBUTES } from '../contract/visibility.js';

/**
 * The harness's search attributes on a Temporal namespace: check them, register the missing ones
 * through the operator service (any server: our dev server or `TEMPORAL_ADDRESS`), or fail naming them
 * with the exact `temporal operator search-attribute create` commands. Used by workers
 * (createHarnessWorker), the run service (start and `/readyz`) and the dev server manager; exported
 * for apps from `agent-harness/worker` and `agent-harness/client`.
 */

const IVT = proto.temporal.api.enums.v1.IndexedValueType;
type IndexedValueType = proto.temporal.api.enums.v1.IndexedValueType;

/** A search attribute type as the `temporal` CLI and temporal-dev.yml spell it. */
export type SearchAttributeTypeName =
  'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

const TYPES: Record<SearchAttributeTypeName, IndexedValueType> = {
  Text: IVT.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IVT.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IVT.INDEXED_VALUE_TYPE_INT,
  Double: IVT.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IVT.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IVT.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IVT.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** The SDK's key types (`defineSearchAttributeKey`) in the CLI's spelling. */
const SDK_TYPES: Record<string, SearchAttributeTypeName> = {
  TEXT: 'Text',
  KEYWORD: 'Keyword',
  INT: 'Int',
  DOUBLE: 'Double',
  BOOL: 'Bool',
  DATETIME: 'Datetime',
  KEYWORD_LIST: 'KeywordList',
};

/** One search attribute a namespace must have. */
export interface WantedSearchAttribute {
  readonly name: string;
  readonly type: SearchAttributeTypeName;
}

/** The five attributes every run sets (`AgentStatus`, `AgentWaitingReason`, … all `Keyword`). */
export const HARNESS_SEARCH_ATTRIBUTES: readonly WantedSearchAttribute[] = RUN_SEARCH_ATTRIBUTES.map((k) => ({
  name: k.name,
  type: SDK_TYPES[k.type] ?? 'Keyword',
}));

/**
 * What a worker or the run service does about the search attributes at start: `register` the missing
 * ones (then check), only `check` them (fail when one is missing), or `skip` both (runs fail at their
 * start when one is missing).
 */
export type SearchAttributesMode = 'register' | 'check' | 'skip';

/** The part of a Temporal connection used here: `Connection` (client) and `NativeConnection` (worker) both fit. */
export interface OperatorConnection {
  /**
   * Used, when present, to wait until the namespace accepts the attributes in queries and starts
   * (see {@link ensureSearchAttributes}); without it only the operator service's list is awaited.
   */
  readonly workflowService?: {
    countWorkflowExecutions(req: { namespace: string; query: string }): Promise<unknown>;
  };
  readonly operatorService: {
    listSearchAttributes(req: { namespace: string }): Promise<{
      customAttributes?: Record<string, IndexedValueType> | null;
      systemAttributes?: Record<string, IndexedValueType> | null;
    }>;
    addSearchAttributes(req: {
      namespace: string;
      searchAttributes: Record<string, IndexedValueType>;
    }): Promise<unknown>;
  };
}

/** A name the namespace has with another type than the harness needs. */
export interface SearchAttributeConflict {
  readonly name: string;
  readonly want: SearchAttributeTypeName;
  readonly have: string;
}

/** What a namespace lacks. */
export interface SearchAttributeCheck {
  readonly missing: readonly WantedSearchAttribute[];
  readonly conflicts: readonly SearchAttributeConflict[];
}

function typeName(t: IndexedValueType): string {
  const found = Object.entries(TYPES).find(([, v]) => v === t);
  return found ? found[0] : `type ${t}`;
}

/**
 * Compare the namespace's search attributes with `wanted` (one `listSearchAttributes` call).
 * @throws the connection's error (unreachable server, unknown namespace, no permission to list).
 */
export async function checkSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  wanted: readonly WantedSearchAttribute[] = HARNESS_SEARCH_ATTRIBUTES,
): Promise<SearchAttributeCheck> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const have = { ...(listed.systemAttributes ?? {}), ...(listed.customAttributes ?? {}) };
  const missing: WantedSearchAttribute[] = [];
  const conflicts: SearchAttributeConflict[] = [];
  for (const w of wanted) {
    const t = have[w.name];
    if (t === undefined) missing.push(w);
    else if (t !== TYPES[w.type]) conflicts.push({ name: w.name, want: w.type, have: typeName(t) });
  }
  return { missing, conflicts };
}

/** The `temporal operator search-attribute create` command for each attribute, one a line. */
export function searchAttributeCommands(
  namespace: string,
  attributes: readonly WantedSearchAttribute[],
): string[] {
  return attributes.map(
    (a) =>
      `temporal operator search-attribute create --namespace ${namespace} --name ${a.name} --type ${a.type}`,
  );
}

/**
 * `temporal.search_attributes_missing`, naming the missing ones and the commands that create them
 * (one a line): for `create`, default the missing ones (a server that refuses a start names only the
 * first it lacks, so that caller lists every attribute). Never throws.
 */
export function missingSearchAttributesError(
  namespace: string,
  missing: readonly WantedSearchAttribute[],
  reason: string,
  cause?: unknown,
  create: readonly WantedSearchAttribute[] = missing,
): HarnessError {
  const names = missing.map((a) => a.name);
  const err = new HarnessError(
    'temporal.search_attributes_missing',
    `namespace ${namespace} has no search attribute ${names.join(', ')} (every run sets them); ${reason}. ` +
      `Create them once:\n${searchAttributeCommands(namespace, create).join('\n')}`,
    { namespace, missing: names },
  );
  return cause === undefined ? err : Object.assign(err, { cause });
}

/** `temporal.search_attributes_conflict`, naming each attribute with its two types. */
export function conflictingSearchAttributesError(
  namespace: string,
  conflicts: readonly SearchAttributeConflict[],
): HarnessError {
  const lines = conflicts.map(
    (c) =>
      `${c.name} is ${c.have}, the harness needs ${c.want}: temporal operator search-attribute remove --namespace ${namespace} --name ${c.name}, then temporal operator search-attribute create --namespace ${namespace} --name ${c.name} --type ${c.want}`,
  );
  return new HarnessError(
    'temporal.search_attributes_conflict',
    `namespace ${namespace} has search attributes of the wrong type (runs cannot set them):\n${lines.join('\n')}`,
    { namespace, conflicts: conflicts.map((c) => ({ ...c })) },
  );
}

export interface EnsureSearchAttributesOptions {
  /** Register the missing ones through the operator service (default true); false: only check. */
  readonly register?: boolean;
  /** Default: {@link HARNESS_SEARCH_ATTRIBUTES}. */
  readonly wanted?: readonly WantedSearchAttribute[];
  /** How long attributes may take to be listed and accepted by the namespace (default 30 s). */
  readonly visibleWithinMs?: number;
  /** Told which attributes were registered. */
  readonly log?: (line: string) => void;
}

function grpcCodeName(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const names: Record<number, string> = {
    7: 'permission denied',
    12: 'not implemented',
    16: 'unauthenticated',
  };
  return typeof code === 'number' && names[code] ? names[code] : 'registration failed';
}

/**
 * Make sure `namespace` has the harness's search attributes with the right types. Missing ones are
 * registered when `register` is on (`addSearchAttributes`, then `listSearchAttributes` is polled until
 * they show: a server may list them only after its caches refresh). Then, registered now or before,
 * it waits until the namespace accepts them in a query (a real server maps new ones only after its
 * namespace cache refreshes, ~10 s), so a run started after it returns can set them. Returns the
 * names it registered.
 * @throws HarnessError `temporal.search_attributes_conflict` when one exists with another type;
 *   `temporal.search_attributes_missing` (naming them and the create commands) when some are missing
 *   and `register` is off, when registering them failed (e.g. permission denied: the cause is kept),
 *   or when they are not listed and accepted within `visibleWithinMs`; the connection's error when the list fails.
 */
export async function ensureSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  options: EnsureSearchAttributesOptions = {},
): Promise<{ registered: string[] }> {
  const wanted = options.wanted ?? HARNESS_SEARCH_ATTRIBUTES;
  const withinMs = options.visibleWithinMs ?? 30_000;
  const first = await checkSearchAttributes(connection, namespace, wanted);
  if (first.conflicts.length > 0) throw conflictingSearchAttributesError(namespace, first.conflicts);
  if (first.missing.length === 0) {
    await awaitAccepted(connection, namespace, wanted, Date.now() + withinMs);
    return { registered: [] };
  }
  if (options.register === false)
    throw missingSearchAttributesError(
      namespace,
      first.missing,
      'registration is off (searchAttributes: check)',
    );
  const searchAttributes = Object.fromEntries(first.missing.map((a) => [a.name, TYPES[a.type]]));
  try {
    await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
  } catch (err) {
    throw missingSearchAttributesError(
      namespace,
      first.missing,
      `the harness could not register them (${grpcCodeName(err)}: ${(err as Error).message})`,
      err,
    );
  }
  const deadline = Date.now() + withinMs;
  for (;;) {
    const now = await checkSearchAttributes(connection, namespace, wanted);
    if (now.conflicts.length > 0) throw conflictingSearchAttributesError(namespace, now.conflicts);
    if (now.missing.length === 0) break;
    if (Date.now() >= deadline)
      throw missingSearchAttributesError(
        namespace,
        now.missing,
        `they were registered but are not listed after ${Math.round(withinMs / 1000)} s (check the server's visibility store)`,
      );
    await new Promise((r) => setTimeout(r, 250));
  }
  await awaitAccepted(connection, namespace, wanted, deadline);
  const registered = first.missing.map((a) => a.name);
  options.log?.(`Registered search attributes on namespace ${namespace}: ${registered.join(', ')}`);
  return { registered };
}

/**
 * Wait until the namespace accepts `wanted` in a visibility query, the check a start makes too: a real
 * server's frontends list a new attribute at once but map it (SQL visibility: to a column of the
 * namespace) only after their namespace cache refreshes, about 10 s later; until then a start that
 * sets it fails with INVALID_ARGUMENT "no mapping defined for search attribute". (The CLI dev server
 * refreshes on every read.) One `countWorkflowExecutions` call when they are accepted; nothing when
 * the connection has no workflow service. Any error but INVALID_ARGUMENT (e.g. permission denied
 * to count) ends the wait: the check is then left to the start.
 * @throws `temporal.search_attributes_missing` when they are still not accepted at `deadline`.
 */
async function awaitAccepted(
  connection: OperatorConnection,
  namespace: string,
  wanted: readonly WantedSearchAttribute[],
  deadline: number,
): Promise<void> {
  const service = connection.workflowService;
  if (service === undefined || wanted.length === 0) return;
  const query = wanted.map((a) => `${a.name} IS NOT NULL`).join(' AND ');
  for (;;) {
    try {
      await service.countWorkflowExecutions({ namespace, query });
      return;
    } catch (err) {
      if ((err as { code?: unknown }).code !== 3) return;
      if (Date.now() >= deadline)
        throw missingSearchAttributesError(
          namespace,
          wanted,
          `they are listed but the namespace does not accept them yet (${(err as Error).message})`,
          err,
        );
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * What a worker or the run service does at start for `mode` (see {@link SearchAttributesMode}).
 * @throws the errors of {@link ensureSearchAttributes} (nothing for `skip`).
 */
export async function prepareSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  mode: SearchAttributesMode = 'register',
  log?: (line: string) => void,
): Promise<void> {
  if (mode === 'skip') return;
  await ensureSearchAttributes(connection, namespace, {
    register: mode === 'register',
    ...(log ? { log } : {}),
  });
}

/**
 * The dev server manager's registration (temporal-dev.yml's `searchAttributes`, on a reused or started
 * dev server): never throws; a failure is logged as a warning (workers and the service check again).
 */
export async function registerDevSearchAttributes(
  address: string,
  namespace: string,
  wanted: Record<string, string>,
  log: (line: string) => void,
): Promise<void> {
  const list = Object.entries(wanted)
    .filter(([, type]) => type in TYPES)
    .map(([name, type]) => ({ name, type: type as SearchAttributeTypeName }));
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address });
    await ensureSearchAttributes(connection, namespace, { wanted: list, log });
  } catch (err) {
    log(`Warning: search attributes: ${(err as Error).message}`);
  } finally {
    await connection?.close();
  }
}
