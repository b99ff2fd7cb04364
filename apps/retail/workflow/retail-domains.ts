import {
  compileCatalogue,
  type CapabilityCatalogue,
  type CapabilityDomainSpec,
  type CatalogueSpec,
  type FactPredicate,
} from '../../../src/workflows/index.js';
import { retailToolDefinitions } from './retail-definitions.js';
import { RETAIL_TOOLS as T } from './retail-tool-names.js';

/**
 * The retail app's capability domains (issue 38) over τ²-bench's retail tools, as the router sees
 * them. The verified facts they speak of (set by the runner from trusted tool results, never from the
 * model):
 * - `user.authenticated` (true): a `find_user_id_by_*` tool found the customer (the policy's
 *   authentication, before any action on a user's data);
 * - `order.owned_by_user` (boolean), `order.status` (the order's status string): `get_order_details`
 *   read the order in question and it belongs to the authenticated user.
 * Every write stands behind a customer confirmation (the policy's explicit "yes"), with the facts of
 * its action verified first; order-status rules are entry conditions (`pending` for cancel and
 * modify, `delivered` for return and exchange), so after `modify_pending_order_items` (status
 * `pending (item modified)`) the order can be neither modified nor cancelled again. Pure data,
 * sandbox-safe.
 */

/** The retail domain ids. */
export const RETAIL_DOMAINS = {
  authenticate: 'authenticate',
  orderDetails: 'order_details',
  cancelPendingOrder: 'cancel_pending_order',
  modifyPendingOrder: 'modify_pending_order',
  returnDeliveredOrder: 'return_delivered_order',
  exchangeDeliveredOrder: 'exchange_delivered_order',
  userAddress: 'user_address',
  escalate: 'escalate',
} as const;

const AUTHENTICATED: FactPredicate = { fact: 'user.authenticated', op: 'eq', value: true };
const OWNED: FactPredicate = { fact: 'order.owned_by_user', op: 'eq', value: true };
const ORDER_FACTS = ['user.authenticated', 'order.owned_by_user', 'order.status'];
const ORDER_READS = [T.getOrderDetails, T.getUserDetails, T.getProductDetails, T.getItemDetails, T.calculate];

/** A write domain on one order of the customer's, entered only in one of `statuses`. */
function orderWriteDomain(
  id: string,
  description: string,
  statuses: string[],
  writes: string[],
): CapabilityDomainSpec {
  return {
    id,
    version: 'v1',
    description,
    tools: [...ORDER_READS, ...writes],
    entry: [AUTHENTICATED, OWNED, { fact: 'order.status', op: 'in', value: statuses }],
    establishes: ['order.status'],
    gates: writes.map((tool) => ({ tool, kind: 'confirmation', requiredFacts: ORDER_FACTS })),
  };
}

/** The domain specs (a fresh array on each call). Pure data, sandbox-safe. */
export function retailDomainSpecs(): CapabilityDomainSpec[] {
  return [
    {
      id: RETAIL_DOMAINS.authenticate,
      version: 'v1',
      description:
        'Authenticate the customer by email, or by first name, last name and zip code, before anything else.',
      tools: [T.findUserIdByEmail, T.findUserIdByNameZip],
      entry: [{ fact: 'user.authenticated', op: 'neq', value: true }],
      establishes: ['user.authenticated'],
    },
    {
      id: RETAIL_DOMAINS.orderDetails,
      version: 'v1',
      description: "Order status and details, the customer's profile, products and items: reads only.",
      tools: [...ORDER_READS, T.listAllProductTypes],
      entry: [AUTHENTICATED],
      establishes: ['order.owned_by_user', 'order.status'],
    },
    orderWriteDomain(
      RETAIL_DOMAINS.cancelPendingOrder,
      'Cancel a pending order of the customer.',
      ['pending'],
      [T.cancelPendingOrder],
    ),
    orderWriteDomain(
      RETAIL_DOMAINS.modifyPendingOrder,
      'Modify a pending order: its shipping address, its payment method, or its items (once).',
      ['pending'],
      [T.modifyPendingOrderAddress, T.modifyPendingOrderItems, T.modifyPendingOrderPayment],
    ),
    orderWriteDomain(
      RETAIL_DOMAINS.returnDeliveredOrder,
      'Return items of a delivered order.',
      ['delivered'],
      [T.returnDeliveredOrderItems],
    ),
    orderWriteDomain(
      RETAIL_DOMAINS.exchangeDeliveredOrder,
      'Exchange items of a delivered order for other items of the same product.',
      ['delivered'],
      [T.exchangeDeliveredOrderItems],
    ),
    {
      id: RETAIL_DOMAINS.userAddress,
      version: 'v1',
      description: "Change the customer's default address.",
      tools: [T.getUserDetails, T.modifyUserAddress],
      entry: [AUTHENTICATED],
      gates: [{ tool: T.modifyUserAddress, kind: 'confirmation', requiredFacts: ['user.authenticated'] }],
    },
    {
      id: RETAIL_DOMAINS.escalate,
      version: 'v1',
      description: 'Transfer to a human agent: only when the request is out of scope of every other domain.',
      tools: [T.transferToHumanAgents],
      fallback: true,
    },
  ];
}

/** The catalogue spec: `retail.domains@v1`, at most 8 route changes per run. */
export function retailCatalogueSpec(): CatalogueSpec {
  return { id: 'retail.domains', version: 'v1', maxRouteChanges: 8, domains: retailDomainSpecs() };
}

/**
 * The compiled retail catalogue over the retail tool definitions.
 *
 * @throws {CatalogueInvalidError} `routing.catalogue_invalid` if the specs and the tools disagree (a
 *   defect of this file; the unit test compiles it).
 */
export function retailCatalogue(): CapabilityCatalogue {
  return compileCatalogue(retailCatalogueSpec(), retailToolDefinitions());
}
