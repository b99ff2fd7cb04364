import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { caseSeedData } from './case-seed.js';
import { RefundErrorCode, RefundExampleError } from './refund-errors.js';
import { REFUND_SCHEMA_SQL, REFUND_SCHEMA_VERSION } from './refund-schema.js';
import { rowToLogistics, rowToOrder, rowToPolicy, rowToRefund } from './refund-rows.js';
import type { LogisticsRow, OrderRow, PolicyRow, RefundRow } from './refund-rows.js';
import type {
  Logistics,
  LogisticsStatus,
  Order,
  OrderStatus,
  Refund,
  RefundPolicy,
  RefundSeedData,
} from './refund-types.js';
import { defaultSeedData } from './seed-data.js';
import { NO_LATENCY, sleepWithHeartbeat } from './store-latency.js';
import type { StoreCallContext, StoreLatency, StoreOperation } from './store-latency.js';

/** Letters for refund ids, one per hex digit of a random UUID (no I or O: they read as 1 and 0). */
const REFUND_ID_ALPHABET = 'ABCDEFGHJKLMNPQR';

/**
 * A new refund id: `RF-` and 20 letters. No digits, on purpose: a run of digits in an id (a hex UUID
 * has them) can look like a card, phone or identity number, and the output guardrail would then
 * block or mask the id in the customer's reply.
 */
export function newRefundId(): string {
  const hex = randomUUID().replace(/-/g, '').slice(0, 20);
  return `RF-${[...hex].map((c) => REFUND_ID_ALPHABET[Number.parseInt(c, 16)]).join('')}`;
}
/** Options of {@link openRefundStore}. */
export interface RefundStoreOptions {
  /** Injected latency for fault drills (test and eval compositions only); default none. */
  readonly latency?: StoreLatency;
  /** The store's clock (refund creation times, policy effectiveness, default seed); default wall clock. */
  readonly clock?: () => Date;
  /** How long a write waits for another process's lock; default 10 s. */
  readonly busyTimeoutMs?: number;
}

/** What `searchPolicies` filters on. Absent fields do not filter. */
export interface PolicySearch {
  /** Words matched case-insensitively against id, title and text; a clause matches if any word does. */
  readonly query?: string;
  readonly orderStatus?: OrderStatus;
  readonly logisticsStatus?: LogisticsStatus;
}

/** Arguments of `createRefund`. */
export interface CreateRefundInput {
  readonly orderId: string;
  readonly amountCents: number;
  readonly reason: string;
  readonly idempotencyKey: string;
}

/** Result of `createRefund`: the refund, and whether this call created it (false = idempotent replay). */
export interface CreateRefundResult {
  readonly refund: Refund;
  readonly created: boolean;
}

/** At most this many policies come back from one search. */
export const MAX_POLICY_RESULTS = 20;

/**
 * The refund example's business system: orders, logistics, refunds and refund policies in one SQLite
 * file. Several processes may open the same file (WAL, busy timeout); refund creation is serialised
 * by an immediate transaction and the UNIQUE idempotency key, so one key yields at most one refund.
 *
 * Async operations first sleep for the configured injected latency (heartbeating through the given
 * context); SQLite errors (e.g. `SQLITE_BUSY` after the busy timeout) propagate unchanged.
 */
export class RefundStore {
  readonly #db: Database.Database;
  readonly #clock: () => Date;
  readonly latency: StoreLatency;

  constructor(
    readonly path: string,
    options: RefundStoreOptions = {},
  ) {
    this.latency = options.latency ?? NO_LATENCY;
    this.#clock = options.clock ?? (() => new Date());
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.#db = new Database(path);
    this.#db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma('foreign_keys = ON');
    this.#db.pragma('synchronous = NORMAL');
    this.#db
      .transaction(() => {
        this.#db.exec(REFUND_SCHEMA_SQL);
        this.#db.pragma(`user_version = ${REFUND_SCHEMA_VERSION}`);
      })
      .immediate();
  }

  /** The store's current time. */
  now(): Date {
    return this.#clock();
  }

  /**
   * Upsert orders, logistics and policies (default: {@link defaultSeedData} at the store's `now`).
   * A row whose content changes gets `version + 1`; re-seeding identical data changes nothing.
   *
   * @throws RefundExampleError `refund.seed_invalid` when a row breaks a constraint (bad status,
   *   logistics for an unknown order, non-positive amount); nothing is written then.
   */
  seed(data: RefundSeedData = defaultSeedData(this.now())): void {
    try {
      this.#db.transaction(() => this.#writeSeed(data)).immediate();
    } catch (err) {
      if (err instanceof Database.SqliteError && err.code.startsWith('SQLITE_CONSTRAINT')) {
        throw new RefundExampleError(
          RefundErrorCode.seedInvalid,
          `seed data breaks a store constraint: ${err.message}`,
          {
            sqliteCode: err.code,
          },
        );
      }
      throw err;
    }
  }

  /**
   * Seed (as {@link seed}) only when the store holds no order yet, atomically: when several worker
   * processes open a fresh shared file at once, exactly one seeds it and the payment times of the
   * default seed are not shifted by later starts.
   *
   * @returns true when this call seeded the store.
   * @throws RefundExampleError `refund.seed_invalid` as {@link seed}.
   */
  seedIfEmpty(data?: RefundSeedData): boolean {
    return this.#db
      .transaction(() => {
        const row = this.#db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM orders').get();
        if ((row?.n ?? 0) > 0) return false;
        this.seed(data);
        return true;
      })
      .immediate();
  }

  /**
   * Empty the store and seed it from an evaluation case's `initial_state`: one order with its
   * logistics row, plus the policy bundle. Deterministic for a given `now`.
   *
   * @returns the seeded order and logistics, as `order.read` / `logistics.read` will report them.
   * @throws RefundExampleError `refund.case_state_invalid` (see {@link caseSeedData}); the store is
   *   left unchanged then.
   */
  seedCase(initialState: unknown, now: Date): { order: Order; logistics: Logistics } {
    const data = caseSeedData(initialState, now);
    this.#db
      .transaction(() => {
        this.#db.exec(
          'DELETE FROM refunds; DELETE FROM logistics; DELETE FROM orders; DELETE FROM refund_policies;',
        );
        this.#writeSeed(data);
      })
      .immediate();
    const orderId = data.orders[0]?.id ?? '';
    const order = this.#selectOrder(orderId);
    const logistics = this.#selectLogistics(orderId);
    if (order === undefined || logistics === undefined)
      throw new Error(`seeded case order ${orderId} cannot be read back`);
    return { order, logistics };
  }

  /** The order, or undefined when no order has this id. */
  async readOrder(orderId: string, cx?: StoreCallContext): Promise<Order | undefined> {
    await this.#inject('readOrder', cx);
    return this.#selectOrder(orderId);
  }

  /** The order's shipment state, or undefined when there is none. */
  async readLogistics(orderId: string, cx?: StoreCallContext): Promise<Logistics | undefined> {
    await this.#inject('readLogistics', cx);
    return this.#selectLogistics(orderId);
  }

  /**
   * The clauses in force at the store's `now` (effectiveFrom <= now < effectiveTo) that apply to the
   * given statuses and match the query, ordered by id, at most {@link MAX_POLICY_RESULTS}.
   */
  async searchPolicies(search: PolicySearch, cx?: StoreCallContext): Promise<RefundPolicy[]> {
    await this.#inject('searchPolicies', cx);
    const now = this.now().toISOString();
    const rows = this.#db
      .prepare<[string, string], PolicyRow>(
        `SELECT * FROM refund_policies
         WHERE effective_from <= ? AND (effective_to IS NULL OR effective_to > ?)
         ORDER BY id, version`,
      )
      .all(now, now);
    const words = (search.query ?? '')
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== '');
    return rows
      .map(rowToPolicy)
      .filter(
        (p) =>
          search.orderStatus === undefined ||
          p.orderStatuses.length === 0 ||
          p.orderStatuses.includes(search.orderStatus),
      )
      .filter(
        (p) =>
          search.logisticsStatus === undefined ||
          p.logisticsStatuses.length === 0 ||
          p.logisticsStatuses.includes(search.logisticsStatus),
      )
      .filter(
        (p) =>
          words.length === 0 || words.some((w) => `${p.id} ${p.title} ${p.text}`.toLowerCase().includes(w)),
      )
      .slice(0, MAX_POLICY_RESULTS);
  }

  /**
   * Create a refund, or return the one that already carries `idempotencyKey` (`created: false`).
   * With latency phase `after_commit` the injected sleep happens after the row is committed, so a
   * cancelled or timed-out call may have refunded: callers reconcile with {@link findRefundByKey}.
   * With `after_commit_hang` that sleep does not heartbeat (a hung connector): the call is declared
   * lost by its heartbeat timeout while the row is already there.
   *
   * @throws RefundExampleError `refund.order_not_found`, `refund.order_not_refundable` (cancelled),
   *   `refund.amount_exceeds_order` (this amount plus earlier non-failed refunds > order amount),
   *   `refund.idempotency_key_reused` (the key names a refund of another order or amount). Nothing is
   *   written in those cases.
   */
  async createRefund(input: CreateRefundInput, cx?: StoreCallContext): Promise<CreateRefundResult> {
    const { phase } = this.latency;
    if (phase === 'before') await this.#inject('createRefund', cx);
    const result = this.#db.transaction(() => this.#createRefundRow(input)).immediate();
    if (phase === 'after_commit') await this.#inject('createRefund', cx);
    if (phase === 'after_commit_hang') await this.#inject('createRefund', { signal: cx?.signal });
    return result;
  }

  /** The refund created with this idempotency key, or undefined. Read-only. */
  async findRefundByKey(idempotencyKey: string, cx?: StoreCallContext): Promise<Refund | undefined> {
    await this.#inject('findRefundByKey', cx);
    const row = this.#db
      .prepare<[string], RefundRow>('SELECT * FROM refunds WHERE idempotency_key = ?')
      .get(idempotencyKey);
    return row === undefined ? undefined : rowToRefund(row);
  }

  /** The refund with this id, or undefined. Read-only. */
  async readRefund(refundId: string, cx?: StoreCallContext): Promise<Refund | undefined> {
    await this.#inject('readRefund', cx);
    const row = this.#db.prepare<[string], RefundRow>('SELECT * FROM refunds WHERE id = ?').get(refundId);
    return row === undefined ? undefined : rowToRefund(row);
  }

  /** Close the connection. The store must not be used afterwards. */
  close(): void {
    this.#db.close();
  }

  async #inject(operation: StoreOperation, cx: StoreCallContext | undefined): Promise<void> {
    await sleepWithHeartbeat(this.latency.perOperationMs[operation] ?? 0, operation, cx);
  }

  #selectOrder(orderId: string): Order | undefined {
    const row = this.#db.prepare<[string], OrderRow>('SELECT * FROM orders WHERE id = ?').get(orderId);
    return row === undefined ? undefined : rowToOrder(row);
  }

  #selectLogistics(orderId: string): Logistics | undefined {
    const row = this.#db
      .prepare<[string], LogisticsRow>('SELECT * FROM logistics WHERE order_id = ?')
      .get(orderId);
    return row === undefined ? undefined : rowToLogistics(row);
  }

  #createRefundRow(input: CreateRefundInput): CreateRefundResult {
    const existing = this.#db
      .prepare<[string], RefundRow>('SELECT * FROM refunds WHERE idempotency_key = ?')
      .get(input.idempotencyKey);
    if (existing !== undefined) {
      if (existing.order_id !== input.orderId || existing.amount_cents !== input.amountCents) {
        throw new RefundExampleError(
          RefundErrorCode.idempotencyKeyReused,
          `idempotency key already used for refund ${existing.id} of order ${existing.order_id}`,
          { refundId: existing.id, orderId: existing.order_id, amountCents: existing.amount_cents },
        );
      }
      return { refund: rowToRefund(existing), created: false };
    }
    const order = this.#selectOrder(input.orderId);
    if (order === undefined) {
      throw new RefundExampleError(RefundErrorCode.orderNotFound, `order ${input.orderId} does not exist`, {
        orderId: input.orderId,
      });
    }
    if (order.status === 'cancelled') {
      throw new RefundExampleError(RefundErrorCode.orderNotRefundable, `order ${order.id} is cancelled`, {
        orderId: order.id,
        orderStatus: order.status,
      });
    }
    const refunded =
      this.#db
        .prepare<[string], { total: number | null }>(
          "SELECT SUM(amount_cents) AS total FROM refunds WHERE order_id = ? AND status != 'failed'",
        )
        .get(order.id)?.total ?? 0;
    if (refunded + input.amountCents > order.amountCents) {
      throw new RefundExampleError(
        RefundErrorCode.amountExceedsOrder,
        `refund of ${input.amountCents} plus ${refunded} already refunded exceeds order amount ${order.amountCents}`,
        {
          orderId: order.id,
          amountCents: input.amountCents,
          alreadyRefundedCents: refunded,
          orderAmountCents: order.amountCents,
        },
      );
    }
    const row: RefundRow = {
      id: newRefundId(),
      order_id: order.id,
      amount_cents: input.amountCents,
      currency: order.currency,
      reason: input.reason,
      idempotency_key: input.idempotencyKey,
      status: 'succeeded',
      created_at: this.now().toISOString(),
    };
    this.#db
      .prepare(
        `INSERT INTO refunds (id, order_id, amount_cents, currency, reason, idempotency_key, status, created_at)
         VALUES (@id, @order_id, @amount_cents, @currency, @reason, @idempotency_key, @status, @created_at)`,
      )
      .run(row);
    return { refund: rowToRefund(row), created: true };
  }

  #writeSeed(data: RefundSeedData): void {
    const upsertOrder = this.#db.prepare(
      `INSERT INTO orders (id, customer_id, status, amount_cents, currency, paid_at, phone)
       VALUES (@id, @customerId, @status, @amountCents, @currency, @paidAt, @phone)
       ON CONFLICT (id) DO UPDATE SET
         customer_id = excluded.customer_id, status = excluded.status, amount_cents = excluded.amount_cents,
         currency = excluded.currency, paid_at = excluded.paid_at, phone = excluded.phone, version = version + 1
       WHERE (customer_id, status, amount_cents, currency, paid_at, phone) IS NOT
             (excluded.customer_id, excluded.status, excluded.amount_cents, excluded.currency, excluded.paid_at, excluded.phone)`,
    );
    const upsertLogistics = this.#db.prepare(
      `INSERT INTO logistics (order_id, status, updated_at) VALUES (@orderId, @status, @updatedAt)
       ON CONFLICT (order_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at, version = version + 1
       WHERE (status, updated_at) IS NOT (excluded.status, excluded.updated_at)`,
    );
    const upsertPolicy = this.#db.prepare(
      `INSERT INTO refund_policies (id, version, title, text, rule, order_statuses, logistics_statuses, effective_from, effective_to)
       VALUES (@id, @version, @title, @text, @rule, @orderStatuses, @logisticsStatuses, @effectiveFrom, @effectiveTo)
       ON CONFLICT (id, version) DO UPDATE SET title = excluded.title, text = excluded.text, rule = excluded.rule,
         order_statuses = excluded.order_statuses, logistics_statuses = excluded.logistics_statuses,
         effective_from = excluded.effective_from, effective_to = excluded.effective_to`,
    );
    for (const order of data.orders) upsertOrder.run(order);
    for (const logistics of data.logistics) upsertLogistics.run(logistics);
    for (const policy of data.policies) {
      upsertPolicy.run({
        id: policy.id,
        version: policy.version,
        title: policy.title,
        text: policy.text,
        rule: JSON.stringify(policy.rule),
        orderStatuses: JSON.stringify(policy.orderStatuses),
        logisticsStatuses: JSON.stringify(policy.logisticsStatuses),
        effectiveFrom: policy.effectiveFrom,
        effectiveTo: policy.effectiveTo ?? null,
      });
    }
  }
}

/**
 * Open (creating if missing) the refund business store at `path`: schema, WAL journal, busy timeout.
 * Latency comes from `options.latency` or the environment.
 *
 * @throws RefundExampleError `refund.latency_config_invalid` when the latency variables are malformed;
 *   SQLite errors when the file cannot be opened or is not a database.
 */
export function openRefundStore(path: string, options: RefundStoreOptions = {}): RefundStore {
  return new RefundStore(path, options);
}
