import type {
  RetailAddress,
  RetailOrder,
  RetailOrderItem,
  RetailOrderStatus,
  RetailPayment,
  RetailPaymentMethod,
  RetailFulfillment,
  RetailUser,
  RetailVariant,
} from './retail-types.js';

/** The address columns every addressed row has (users, orders). */
export interface AddressColumns {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

export interface VariantRow {
  product_id: string;
  item_id: string;
  options_json: string;
  available: number;
  price: number;
}

export interface UserRow extends AddressColumns {
  user_id: string;
  first_name: string;
  last_name: string;
  email: string;
  orders_json: string;
}

export interface PaymentMethodRow {
  user_id: string;
  id: string;
  source: RetailPaymentMethod['source'];
  brand: string | null;
  last_four: string | null;
  balance: number | null;
}

export interface OrderRow extends AddressColumns {
  order_id: string;
  user_id: string;
  status: RetailOrderStatus;
  cancel_reason: string | null;
  exchange_items_json: string | null;
  exchange_new_items_json: string | null;
  exchange_payment_method_id: string | null;
  exchange_price_difference: number | null;
  return_items_json: string | null;
  return_payment_method_id: string | null;
}

export interface OrderItemRow {
  order_id: string;
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options_json: string;
}

export interface FulfillmentRow {
  order_id: string;
  tracking_ids_json: string;
  item_ids_json: string;
}

export interface PaymentRow {
  order_id: string;
  transaction_type: RetailPayment['transaction_type'];
  amount: number;
  payment_method_id: string;
}

/** The address of a row, in the model's field order. */
export function rowToAddress(row: AddressColumns): RetailAddress {
  return {
    address1: row.address1,
    address2: row.address2,
    city: row.city,
    country: row.country,
    state: row.state,
    zip: row.zip,
  };
}

export function rowToVariant(row: VariantRow): RetailVariant {
  return {
    item_id: row.item_id,
    options: JSON.parse(row.options_json) as Record<string, string>,
    available: row.available === 1,
    price: row.price,
  };
}

/** A payment method: a gift card has its balance, a credit card its brand and last four, paypal neither. */
export function rowToPaymentMethod(row: PaymentMethodRow): RetailPaymentMethod {
  if (row.source === 'gift_card') return { source: 'gift_card', id: row.id, balance: row.balance ?? 0 };
  if (row.source === 'credit_card') {
    return { source: 'credit_card', id: row.id, brand: row.brand ?? '', last_four: row.last_four ?? '' };
  }
  return { source: 'paypal', id: row.id };
}

/** A user from its row and its payment methods (in their order). */
export function rowToUser(row: UserRow, methods: readonly PaymentMethodRow[]): RetailUser {
  const paymentMethods: Record<string, RetailPaymentMethod> = {};
  for (const m of methods) paymentMethods[m.id] = rowToPaymentMethod(m);
  return {
    user_id: row.user_id,
    name: { first_name: row.first_name, last_name: row.last_name },
    address: rowToAddress(row),
    email: row.email,
    payment_methods: paymentMethods,
    orders: JSON.parse(row.orders_json) as string[],
  };
}

export function rowToOrderItem(row: OrderItemRow): RetailOrderItem {
  return {
    name: row.name,
    product_id: row.product_id,
    item_id: row.item_id,
    price: row.price,
    options: JSON.parse(row.options_json) as Record<string, string>,
  };
}

export function rowToFulfillment(row: FulfillmentRow): RetailFulfillment {
  return {
    tracking_id: JSON.parse(row.tracking_ids_json) as string[],
    item_ids: JSON.parse(row.item_ids_json) as string[],
  };
}

export function rowToPayment(row: PaymentRow): RetailPayment {
  return {
    transaction_type: row.transaction_type,
    amount: row.amount,
    payment_method_id: row.payment_method_id,
  };
}

/** The parts of an order kept in child tables, in their order. */
export interface OrderChildren {
  readonly items: readonly OrderItemRow[];
  readonly fulfillments: readonly FulfillmentRow[];
  readonly payments: readonly PaymentRow[];
}

/** An order in `db.json`'s shape: optional fields only when set. */
export function rowToOrder(row: OrderRow, children: OrderChildren): RetailOrder {
  const order: RetailOrder = {
    order_id: row.order_id,
    user_id: row.user_id,
    address: rowToAddress(row),
    items: children.items.map(rowToOrderItem),
    status: row.status,
    fulfillments: children.fulfillments.map(rowToFulfillment),
    payment_history: children.payments.map(rowToPayment),
  };
  if (row.cancel_reason !== null) order.cancel_reason = row.cancel_reason;
  if (row.exchange_items_json !== null)
    order.exchange_items = JSON.parse(row.exchange_items_json) as string[];
  if (row.exchange_new_items_json !== null) {
    order.exchange_new_items = JSON.parse(row.exchange_new_items_json) as string[];
  }
  if (row.exchange_payment_method_id !== null)
    order.exchange_payment_method_id = row.exchange_payment_method_id;
  if (row.exchange_price_difference !== null) order.exchange_price_difference = row.exchange_price_difference;
  if (row.return_items_json !== null) order.return_items = JSON.parse(row.return_items_json) as string[];
  if (row.return_payment_method_id !== null) order.return_payment_method_id = row.return_payment_method_id;
  return order;
}

/** JSON text of an optional list column, or NULL. */
export function optionalJson(value: readonly string[] | undefined): string | null {
  return value === undefined ? null : JSON.stringify(value);
}
