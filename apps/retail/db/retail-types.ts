/**
 * The retail domain's data, in the shape of τ²-bench's `db.json` and of its pydantic models
 * (`src/tau2/domains/retail/data_model.py`): snake_case fields, ids as strings, money as binary
 * floats (the benchmark's `float`, so arithmetic and rounding give the same numbers).
 */

/** A postal address (`UserAddress`), on users and on orders. */
export interface RetailAddress {
  address1: string;
  address2: string;
  city: string;
  country: string;
  state: string;
  zip: string;
}

/** One sellable variant of a product (`Variant`); its id is the "item id". */
export interface RetailVariant {
  item_id: string;
  options: Record<string, string>;
  available: boolean;
  price: number;
}

/** A product type with its variants by item id (`Product`). */
export interface RetailProduct {
  name: string;
  product_id: string;
  variants: Record<string, RetailVariant>;
}

/** `CreditCard | GiftCard | Paypal`, told apart by `source`. Only a gift card has a balance. */
export type RetailPaymentMethod =
  | { source: 'credit_card'; id: string; brand: string; last_four: string }
  | { source: 'gift_card'; id: string; balance: number }
  | { source: 'paypal'; id: string };

/** A customer (`User`). `orders` lists order ids; no tool changes it. */
export interface RetailUser {
  user_id: string;
  name: { first_name: string; last_name: string };
  address: RetailAddress;
  email: string;
  payment_methods: Record<string, RetailPaymentMethod>;
  orders: string[];
}

/** One line of an order (`OrderItem`): the price and options at the time of purchase. */
export interface RetailOrderItem {
  name: string;
  product_id: string;
  item_id: string;
  price: number;
  options: Record<string, string>;
}

/** A shipment (`OrderFullfilment`, sic). */
export interface RetailFulfillment {
  tracking_id: string[];
  item_ids: string[];
}

/** A payment or refund on an order (`OrderPayment`). */
export interface RetailPayment {
  transaction_type: 'payment' | 'refund';
  amount: number;
  payment_method_id: string;
}

/** `OrderStatus` of the benchmark. */
export const RETAIL_ORDER_STATUSES = [
  'processed',
  'pending',
  'pending (item modified)',
  'delivered',
  'cancelled',
  'exchange requested',
  'return requested',
] as const;
export type RetailOrderStatus = (typeof RETAIL_ORDER_STATUSES)[number];

/** `CancelReason` of the benchmark. */
export const RETAIL_CANCEL_REASONS = ['no longer needed', 'ordered by mistake'] as const;

/** The optional fields of an order, in the model's order; absent in `db.json` until a tool sets them. */
export const RETAIL_ORDER_OPTIONAL_FIELDS = [
  'cancel_reason',
  'exchange_items',
  'exchange_new_items',
  'exchange_payment_method_id',
  'exchange_price_difference',
  'return_items',
  'return_payment_method_id',
] as const;

/**
 * An order (`Order`) in `db.json`'s shape: the optional fields are absent while unset (the pydantic
 * model's `None`).
 */
export interface RetailOrder {
  order_id: string;
  user_id: string;
  address: RetailAddress;
  items: RetailOrderItem[];
  status: RetailOrderStatus;
  fulfillments: RetailFulfillment[];
  payment_history: RetailPayment[];
  cancel_reason?: string;
  exchange_items?: string[];
  exchange_new_items?: string[];
  exchange_payment_method_id?: string;
  exchange_price_difference?: number;
  return_items?: string[];
  return_payment_method_id?: string;
}

/** The whole database, exactly the shape of the benchmark's `db.json` (`RetailDB`). */
export interface RetailDbJson {
  products: Record<string, RetailProduct>;
  users: Record<string, RetailUser>;
  orders: Record<string, RetailOrder>;
}
