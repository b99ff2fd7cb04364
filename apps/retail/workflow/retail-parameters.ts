/**
 * JSON-schema fragments of the retail tools' parameters, with the benchmark's own descriptions.
 * Deliberately no patterns or enums where the benchmark takes any string: an unknown order id or an
 * unsupported cancel reason must reach the tool and get the benchmark's own error (`Order not found`,
 * `Invalid reason`), not a schema rejection. Only sizes are bounded (far above any real value).
 */

/** Longest id, name or address field accepted. */
export const MAX_FIELD_LENGTH = 256;
/** Longest free text accepted (a transfer summary, a calculator expression). */
export const MAX_TEXT_LENGTH = 4000;
/** Most item ids in one list. */
export const MAX_ITEMS = 100;

/** A bounded string with a description. */
export function field(description: string, maxLength = MAX_FIELD_LENGTH): Record<string, unknown> {
  return { type: 'string', description, maxLength };
}

/** A bounded list of item ids. */
export function itemIdList(description: string): Record<string, unknown> {
  return { type: 'array', description, items: field('An item id, such as 1008292230.'), maxItems: MAX_ITEMS };
}

/** A closed object schema over `properties`, all required (the benchmark's tools have no optional parameter). */
export function closedParameters(
  properties: Record<string, Record<string, unknown>>,
): Record<string, unknown> {
  return { type: 'object', properties, required: Object.keys(properties), additionalProperties: false };
}

export const ORDER_ID = field(
  "The order id, such as '#W0000000'. Be careful there is a '#' symbol at the beginning of the order id.",
);
export const USER_ID = field("The user id, such as 'sara_doe_496'.");
export const PAYMENT_METHOD_ID = field(
  "The payment method id to pay or receive refund for the item price difference, such as 'gift_card_0000000' or 'credit_card_0000000'. These can be looked up from the user or order details.",
);

/** The six address parameters shared by the two address tools. */
export const ADDRESS_PROPERTIES = {
  address1: field("The first line of the address, such as '123 Main St'."),
  address2: field("The second line of the address, such as 'Apt 1' or ''."),
  city: field("The city, such as 'San Francisco'."),
  state: field("The state, such as 'CA'."),
  country: field("The country, such as 'USA'."),
  zip: field("The zip code, such as '12345'."),
} as const;
